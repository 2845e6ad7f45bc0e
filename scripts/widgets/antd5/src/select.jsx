import React, { useState } from "react";
import { AutoComplete, Form, Select, Typography } from "antd";
import { set } from "./state.js";

export const initial = {
  department: "Engineering",
  offices: ["Berlin", "Tokyo"],
  country: "",
  jobTitle: null,
};

const departments = ["Engineering", "Marketing", "Sales", "Finance", "Human Resources", "Legal", "Operations", "Customer Support"];
const offices = ["Amsterdam", "Berlin", "Lisbon", "London", "New York", "Paris", "São Paulo", "Singapore", "Sydney", "Tokyo"];
export const countries = [
  "Argentina", "Australia", "Austria", "Belgium", "Brazil", "Canada", "Chile", "Denmark", "Finland", "France",
  "Germany", "India", "Ireland", "Italy", "Japan", "Mexico", "Netherlands", "Norway", "Portugal", "Spain",
];
const jobTitles = ["Software Engineer", "Product Manager", "Designer", "Data Analyst", "Sales Representative", "Recruiter"];

const opts = (xs) => xs.map((x) => ({ value: x, label: x }));

// CountryField receives id, value and onChange from its Form.Item.
function CountryField({ id, value, onChange }) {
  const [options, setOptions] = useState([]);
  const search = (text) => {
    const t = text.trim().toLowerCase();
    setOptions(t ? opts(countries.filter((c) => c.toLowerCase().includes(t))) : []);
  };
  return (
    <AutoComplete
      id={id}
      value={value}
      options={options}
      onSearch={search}
      onChange={(v) => {
        onChange?.(v);
        set("country", v);
      }}
      placeholder="Start typing a country"
    />
  );
}

// JobTitleField is a searchable Select that accepts a title not in its
// list: the typed text is offered as the first option.
function JobTitleField({ id, value, onChange }) {
  const [typed, setTyped] = useState("");
  const t = typed.trim();
  const known = jobTitles.some((j) => j.toLowerCase() === t.toLowerCase());
  const options = t && !known ? [{ value: t, label: t }, ...opts(jobTitles)] : opts(jobTitles);
  return (
    <Select
      id={id}
      value={value}
      showSearch
      allowClear
      placeholder="Pick or type a job title"
      options={options}
      onSearch={setTyped}
      onChange={(v) => {
        onChange?.(v);
        set("jobTitle", v === undefined ? null : v);
        setTyped("");
      }}
    />
  );
}

export function Page() {
  return (
    <>
      <Typography.Title level={2}>New employee</Typography.Title>
      <Form name="employee" layout="vertical" style={{ maxWidth: 480 }} initialValues={{ department: initial.department, offices: initial.offices }}>
        <Form.Item label="Department" name="department">
          <Select options={opts(departments)} onChange={(v) => set("department", v)} />
        </Form.Item>
        <Form.Item label="Office locations" name="offices">
          <Select mode="multiple" allowClear placeholder="Choose offices" options={opts(offices)} onChange={(v) => set("offices", v)} />
        </Form.Item>
        <Form.Item label="Country" name="country">
          <CountryField />
        </Form.Item>
        <Form.Item label="Job title" name="jobTitle">
          <JobTitleField />
        </Form.Item>
      </Form>
    </>
  );
}
