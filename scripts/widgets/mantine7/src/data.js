// Realistic, fixed data shared by the pages.
export const departments = ['Engineering', 'Design', 'Marketing', 'Sales', 'Finance', 'Human Resources', 'Legal', 'Support'];

export const people = [
  'Alice Johnson', 'Bob Martin', 'Carla Gomez', 'David Chen', 'Emma Wilson', 'Farid Haddad',
  'Grace Lee', 'Hiro Tanaka', 'Ines Moreau', 'Jonas Berg',
];

export const countries = [
  'Argentina', 'Australia', 'Austria', 'Belgium', 'Brazil', 'Canada', 'Chile', 'Denmark',
  'Finland', 'France', 'Germany', 'India', 'Ireland', 'Italy', 'Japan', 'Mexico', 'Netherlands',
  'Norway', 'Portugal', 'Spain', 'Sweden', 'Switzerland', 'United Kingdom', 'United States',
];

const firstNames = ['Alice', 'Bob', 'Carla', 'David', 'Emma', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas',
  'Karin', 'Liam', 'Maya', 'Noah', 'Olga', 'Pablo', 'Quinn', 'Rosa', 'Sven', 'Tara',
  'Umar', 'Vera', 'Wes', 'Ximena', 'Yusuf'];
const lastNames = ['Adams', 'Brown', 'Costa', 'Dubois', 'Evans', 'Fischer', 'Garcia', 'Hansen',
  'Ito', 'Jensen', 'Kowalski', 'Lopez', 'Muller', 'Nakamura', 'Olsen', 'Perez', 'Quist', 'Rossi',
  'Schmidt', 'Turner', 'Ueda', 'Vogel', 'Walsh', 'Xu', 'Young', 'Zimmer', 'Novak', 'Silva',
  'Moreau', 'Berg', 'Khan', 'Murphy', 'Lindqvist', 'Horvat', 'Petrov', 'Yilmaz', 'Dahl', 'Russo',
  'Ward', 'Klein'];

// 1,000 distinct employees "Firstname Lastname" (25 × 40), numbered E0001…E1000.
export const employees = [];
for (let i = 0; i < 1000; i++) {
  const f = firstNames[i % firstNames.length];
  const l = lastNames[Math.floor(i / firstNames.length) % lastNames.length];
  const id = 'E' + String(i + 1).padStart(4, '0');
  employees.push({ value: id, label: `${f} ${l} (${id})` });
}

// 1,000 warehouse bins "Bin A-001" … "Bin J-100".
export const bins = [];
for (let i = 0; i < 1000; i++) {
  const aisle = String.fromCharCode(65 + Math.floor(i / 100));
  bins.push(`Bin ${aisle}-${String((i % 100) + 1).padStart(3, '0')}`);
}

const verbs = ['Fix', 'Add', 'Update', 'Remove', 'Refactor', 'Investigate'];
const things = ['login timeout', 'export to CSV', 'dark mode toggle', 'invoice PDF layout',
  'search ranking', 'password reset email', 'dashboard charts', 'API rate limits', 'mobile menu',
  'audit log filter'];
const statuses = ['Open', 'In progress', 'Review', 'Done'];
const priorities = ['Low', 'Medium', 'High', 'Critical'];

// 60 tickets with fixed ids TCK-101 … TCK-160.
export const tickets = [];
for (let i = 0; i < 60; i++) {
  tickets.push({
    id: `TCK-${101 + i}`,
    title: `${verbs[Math.floor(i / 10) % verbs.length]} ${things[(i * 7) % things.length]}`,
    status: statuses[(i * 3) % statuses.length],
    priority: priorities[(i * 5 + 1) % priorities.length],
    assignee: people[(i * 3) % people.length],
  });
}
