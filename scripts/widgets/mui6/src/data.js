// Realistic, fixed data shared by the pages.
export const departments = ['Engineering', 'Design', 'Marketing', 'Sales', 'Finance', 'Human Resources', 'Support'];

export const skills = ['React', 'Go', 'TypeScript', 'Python', 'SQL', 'Kubernetes', 'GraphQL', 'Rust'];

export const countries = [
  'Argentina', 'Australia', 'Austria', 'Belgium', 'Brazil', 'Canada', 'Denmark', 'Finland',
  'France', 'Germany', 'India', 'Ireland', 'Italy', 'Japan', 'Mexico', 'Netherlands',
  'Norway', 'Portugal', 'Spain', 'Sweden',
];

export const jobTitles = [
  'Software Engineer', 'Senior Software Engineer', 'Product Manager', 'Product Designer',
  'Data Analyst', 'Engineering Manager', 'Technical Writer', 'Site Reliability Engineer',
];

const firstNames = [
  'Ada', 'Alan', 'Alice', 'Amara', 'Ben', 'Carla', 'Chen', 'Dana', 'David', 'Elena',
  'Emil', 'Fatima', 'Felix', 'Grace', 'Hana', 'Hugo', 'Ines', 'Ivan', 'Jonas', 'Julia',
  'Kenji', 'Lara', 'Leo', 'Lina', 'Marco', 'Maya', 'Nadia', 'Noah', 'Olga', 'Omar',
  'Paula', 'Pedro', 'Priya', 'Rosa', 'Sam', 'Sara', 'Tomas', 'Uma', 'Victor', 'Yusuf',
];
const lastNames = [
  'Andersen', 'Baker', 'Costa', 'Dubois', 'Eriksson', 'Fischer', 'Garcia', 'Hansen', 'Ito',
  'Jensen', 'Kowalski', 'Larsen', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quinn', 'Rossi',
  'Schmidt', 'Tanaka', 'Umarov', 'Varga', 'Weber', 'Xu', 'Young',
];

// customers: 1,000 distinct "First Last" names, sorted.
export const customers = firstNames
  .flatMap((f) => lastNames.map((l) => f + ' ' + l))
  .sort((a, b) => a.localeCompare(b));

// tickets: 60 support tickets with fixed ids, titles, statuses, priorities and assignees.
const subjects = [
  'Login page times out', 'Export to CSV fails', 'Dark mode contrast too low', 'Invoice total rounding',
  'Search ignores accents', 'Password reset email delayed', 'Upload stalls at 99%', 'Broken link in footer',
  'Slow dashboard load', 'Duplicate notifications', 'Calendar shows wrong week', 'Avatar upload rejected',
];
const statuses = ['Open', 'In progress', 'Blocked', 'Resolved', 'Closed'];
const priorities = ['Low', 'Medium', 'High', 'Urgent'];
const assignees = ['Ada Costa', 'Ben Fischer', 'Chen Ito', 'Dana Weber', 'Elena Rossi', 'Omar Hansen', 'Priya Larsen'];

export const tickets = Array.from({ length: 60 }, (_, i) => ({
  id: 1001 + i,
  title: subjects[i % subjects.length] + (i >= subjects.length ? ' (#' + (Math.floor(i / subjects.length) + 1) + ')' : ''),
  status: statuses[(i * 7) % statuses.length],
  priority: priorities[(i * 5 + 1) % priorities.length],
  assignee: assignees[(i * 3) % assignees.length],
}));
