import React from "react";
import { Table, Tag, Typography } from "antd";
import { set } from "./state.js";

export const initial = {
  selected: [],
  sort: null,
  page: 1,
};

const subjects = [
  "Login page times out", "Export to CSV misses rows", "Dark mode contrast", "Invoice PDF has wrong date",
  "Search ignores accents", "Password reset email late", "Broken link in footer", "Slow dashboard load",
  "Avatar upload fails", "Typo in onboarding", "Webhook retries forever", "Timezone shown as UTC",
  "Mobile menu overlaps", "Duplicate notifications", "API rate limit too low",
];
const statuses = ["Open", "In progress", "Blocked", "Resolved"];
const priorities = ["Low", "Medium", "High", "Urgent"];
const people = ["Alice Johnson", "Bruno Silva", "Chen Wei", "Dana Kaplan", "Emeka Obi", "Fatima Zahra", "Gustav Berg"];

// 60 tickets, the same on every load.
export const tickets = Array.from({ length: 60 }, (_, i) => ({
  id: `TCK-${1001 + i}`,
  title: subjects[(i * 7) % subjects.length] + (i >= subjects.length ? ` (${Math.floor(i / subjects.length) + 1})` : ""),
  status: statuses[(i * 3) % statuses.length],
  priority: priorities[(i * 5 + 1) % priorities.length],
  assignee: people[(i * 2) % people.length],
}));

const cmp = (k) => (a, b) => a[k].localeCompare(b[k]);
const statusColor = { Open: "blue", "In progress": "gold", Blocked: "red", Resolved: "green" };

const columns = [
  { title: "ID", dataIndex: "id", key: "id", sorter: cmp("id") },
  { title: "Title", dataIndex: "title", key: "title", sorter: cmp("title") },
  { title: "Status", dataIndex: "status", key: "status", sorter: cmp("status"), render: (s) => <Tag color={statusColor[s]}>{s}</Tag> },
  { title: "Priority", dataIndex: "priority", key: "priority", sorter: (a, b) => priorities.indexOf(a.priority) - priorities.indexOf(b.priority) },
  { title: "Assignee", dataIndex: "assignee", key: "assignee", sorter: cmp("assignee") },
];

export function Page() {
  return (
    <>
      <Typography.Title level={2}>Support tickets</Typography.Title>
      <Table
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={tickets}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        rowSelection={{ onChange: (keys) => set("selected", keys) }}
        onChange={(p, _filters, sorter) => {
          set("page", p.current);
          const s = Array.isArray(sorter) ? sorter[0] : sorter;
          set("sort", s && s.order ? { field: s.field, dir: s.order === "ascend" ? "asc" : "desc", order: s.order } : null);
        }}
      />
    </>
  );
}
