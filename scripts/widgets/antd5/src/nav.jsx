import React, { useState } from "react";
import { Button, Collapse, Dropdown, Pagination, Space, Steps, Tabs, Tooltip, Typography } from "antd";
import { DeleteOutlined, DownloadOutlined, DownOutlined, SettingOutlined } from "@ant-design/icons";
import { set } from "./state.js";

export const initial = {
  tab: "overview",
  menu: null,
  step: 0,
  accordion: ["shipping"],
  page: 1,
  iconButton: null,
  iconClicks: 0,
};

const steps = [
  { title: "Cart", description: "Review items" },
  { title: "Shipping", description: "Address" },
  { title: "Payment", description: "Card details" },
  { title: "Review", description: "Place order" },
];

const menuItems = [
  { key: "edit", label: "Edit" },
  { key: "duplicate", label: "Duplicate" },
  { key: "archive", label: "Archive" },
  { key: "export", label: "Export", disabled: true },
  { type: "divider" },
  { key: "delete", label: "Delete", danger: true },
];

function Stepper() {
  const [current, setCurrent] = useState(initial.step);
  const go = (n) => {
    setCurrent(n);
    set("step", n);
  };
  return (
    <>
      <Steps current={current} items={steps} />
      <Space style={{ marginTop: 16 }}>
        <Button disabled={current === 0} onClick={() => go(current - 1)}>
          Back
        </Button>
        <Button type="primary" disabled={current === steps.length - 1} onClick={() => go(current + 1)}>
          Next
        </Button>
      </Space>
    </>
  );
}

export function Page() {
  const icon = (name) => () => {
    set("iconButton", name);
    set("iconClicks", window.__state.iconClicks + 1);
  };
  return (
    <>
      <Typography.Title level={2}>Order</Typography.Title>
      <Tabs
        defaultActiveKey={initial.tab}
        onChange={(k) => set("tab", k)}
        items={[
          { key: "overview", label: "Overview", children: <p>Order #4521 was placed on 12 March 2026 and ships in 2 days.</p> },
          { key: "activity", label: "Activity", children: <p>3 updates: paid, packed, label printed.</p> },
          { key: "settings", label: "Settings", children: <p>Notifications are sent to the account owner.</p> },
          { key: "billing", label: "Billing", disabled: true, children: <p>Billing</p> },
        ]}
      />

      <Typography.Title level={4}>Actions</Typography.Title>
      <Dropdown menu={{ items: menuItems, onClick: ({ key }) => set("menu", key) }} trigger={["click"]}>
        <Button>
          <Space>
            Actions
            <DownOutlined />
          </Space>
        </Button>
      </Dropdown>

      <Typography.Title level={4}>Checkout</Typography.Title>
      <Stepper />

      <Typography.Title level={4}>FAQ</Typography.Title>
      <Collapse
        accordion
        defaultActiveKey={initial.accordion}
        onChange={(keys) => set("accordion", Array.isArray(keys) ? keys : [keys])}
        items={[
          { key: "shipping", label: "Shipping policy", children: <p>Orders ship within 2 business days.</p> },
          { key: "returns", label: "Returns", children: <p>Return any item within 30 days.</p> },
          { key: "warranty", label: "Warranty", children: <p>Two years on all electronics.</p> },
        ]}
      />

      <Typography.Title level={4}>Orders</Typography.Title>
      <Pagination defaultCurrent={initial.page} total={200} showSizeChanger={false} onChange={(p) => set("page", p)} />

      <Typography.Title level={4}>Toolbar</Typography.Title>
      <Space>
        <Button danger icon={<DeleteOutlined />} aria-label="Delete" onClick={icon("Delete")} />
        <Button icon={<SettingOutlined />} title="Settings" onClick={icon("Settings")} />
        <Tooltip title="Download">
          <Button type="primary" shape="circle" icon={<DownloadOutlined />} aria-label="Download" onClick={icon("Download")} />
        </Tooltip>
      </Space>
    </>
  );
}
