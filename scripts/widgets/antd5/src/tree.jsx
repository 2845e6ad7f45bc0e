import React from "react";
import { Cascader, Form, Tree, TreeSelect, Typography } from "antd";
import { set } from "./state.js";

export const initial = {
  region: null,
  team: null,
  folder: null,
  expandedFolders: ["docs"],
  checkedFolders: [],
};

const regions = [
  {
    value: "United States",
    label: "United States",
    children: [
      { value: "California", label: "California", children: [{ value: "Los Angeles", label: "Los Angeles" }, { value: "San Francisco", label: "San Francisco" }, { value: "San Diego", label: "San Diego" }] },
      { value: "New York", label: "New York", children: [{ value: "New York City", label: "New York City" }, { value: "Buffalo", label: "Buffalo" }] },
      { value: "Texas", label: "Texas", children: [{ value: "Austin", label: "Austin" }, { value: "Houston", label: "Houston" }, { value: "Dallas", label: "Dallas" }] },
    ],
  },
  {
    value: "Germany",
    label: "Germany",
    children: [
      { value: "Bavaria", label: "Bavaria", children: [{ value: "Munich", label: "Munich" }, { value: "Nuremberg", label: "Nuremberg" }] },
      { value: "Berlin", label: "Berlin", children: [{ value: "Berlin-Mitte", label: "Berlin-Mitte" }, { value: "Kreuzberg", label: "Kreuzberg" }] },
    ],
  },
  {
    value: "Japan",
    label: "Japan",
    children: [
      { value: "Kanto", label: "Kanto", children: [{ value: "Tokyo", label: "Tokyo" }, { value: "Yokohama", label: "Yokohama" }] },
      { value: "Kansai", label: "Kansai", children: [{ value: "Osaka", label: "Osaka" }, { value: "Kyoto", label: "Kyoto" }] },
    ],
  },
];

const teams = [
  {
    value: "company",
    title: "Company",
    children: [
      {
        value: "engineering",
        title: "Engineering",
        children: [
          { value: "frontend", title: "Frontend" },
          { value: "backend", title: "Backend" },
          { value: "platform", title: "Platform" },
        ],
      },
      {
        value: "product",
        title: "Product",
        children: [
          { value: "design", title: "Design" },
          { value: "research", title: "User Research" },
        ],
      },
      { value: "sales", title: "Sales", children: [{ value: "emea", title: "EMEA" }, { value: "americas", title: "Americas" }] },
    ],
  },
];

const folders = [
  {
    key: "docs",
    title: "Documents",
    children: [
      { key: "docs/contracts", title: "Contracts", children: [{ key: "docs/contracts/2025", title: "2025" }, { key: "docs/contracts/2026", title: "2026" }] },
      { key: "docs/invoices", title: "Invoices", children: [{ key: "docs/invoices/q1", title: "Q1" }, { key: "docs/invoices/q2", title: "Q2" }] },
      { key: "docs/readme", title: "Read me.txt", isLeaf: true },
    ],
  },
  {
    key: "photos",
    title: "Photos",
    children: [
      { key: "photos/team", title: "Team offsite" },
      { key: "photos/product", title: "Product shots" },
    ],
  },
  { key: "archive", title: "Archive", children: [{ key: "archive/old", title: "Old projects" }] },
];

export function Page() {
  return (
    <>
      <Typography.Title level={2}>Shipping and teams</Typography.Title>
      <Form name="org" layout="vertical" style={{ maxWidth: 480 }}>
        <Form.Item label="Shipping region" name="region">
          <Cascader options={regions} placeholder="Country / state / city" onChange={(v) => set("region", v ?? null)} />
        </Form.Item>
        <Form.Item label="Team" name="team">
          <TreeSelect
            treeData={teams}
            placeholder="Choose a team"
            allowClear
            onChange={(v) => set("team", v ?? null)}
          />
        </Form.Item>
      </Form>
      <Typography.Title level={4}>Shared folders</Typography.Title>
      <Tree
        checkable
        treeData={folders}
        defaultExpandedKeys={initial.expandedFolders}
        onSelect={(keys) => set("folder", keys.length ? keys[0] : null)}
        onExpand={(keys) => set("expandedFolders", keys)}
        onCheck={(keys) => set("checkedFolders", Array.isArray(keys) ? keys : keys.checked)}
      />
    </>
  );
}
