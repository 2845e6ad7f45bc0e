import React, { useState } from "react";
import { Button, Drawer, Form, Input, Modal, notification, Space, Typography } from "antd";
import { set } from "./state.js";

export const initial = {
  modal: null,
  drawer: null,
  displayName: "Ada Lovelace",
  notification: null,
};

export function Page() {
  const [modalOpen, setModalOpen] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [name, setName] = useState(initial.displayName);
  const [api, contextHolder] = notification.useNotification();

  const closeModal = (how) => () => {
    setModalOpen(false);
    set("modal", how);
  };
  const closeDrawer = (how) => {
    setDrawerOpen(false);
    set("drawer", how);
  };
  const notify = () => {
    api.open({
      key: "export",
      message: "Export finished",
      description: "tickets-2026-03.csv is ready in your downloads.",
      duration: 0,
      onClose: () => set("notification", "closed"),
    });
    set("notification", "shown");
  };

  return (
    <>
      {contextHolder}
      <Typography.Title level={2}>Project settings</Typography.Title>
      <Space direction="vertical" size="large">
        <section>
          <Typography.Title level={4}>Danger zone</Typography.Title>
          <Button
            danger
            onClick={() => {
              setModalOpen(true);
              set("modal", "opened");
            }}
          >
            Delete project
          </Button>
        </section>
        <section>
          <Typography.Title level={4}>Profile</Typography.Title>
          <Typography.Paragraph>Display name: {name}</Typography.Paragraph>
          <Button
            onClick={() => {
              setDrawerOpen(true);
              set("drawer", "opened");
            }}
          >
            Edit profile
          </Button>
        </section>
        <section>
          <Typography.Title level={4}>Exports</Typography.Title>
          <Button type="primary" onClick={notify}>
            Export tickets
          </Button>
        </section>
      </Space>

      <Modal title="Delete project?" open={modalOpen} okText="Delete" okButtonProps={{ danger: true }} onOk={closeModal("confirmed")} onCancel={closeModal("cancelled")}>
        <p>The project “Website redesign” and its 42 tickets will be deleted. This cannot be undone.</p>
      </Modal>

      <Drawer
        title="Edit profile"
        open={drawerOpen}
        onClose={() => closeDrawer("closed")}
        destroyOnHidden
        extra={
          <Button type="primary" form="profile" htmlType="submit">
            Save
          </Button>
        }
      >
        <Form
          id="profile"
          name="profile"
          layout="vertical"
          initialValues={{ displayName: name }}
          onFinish={(v) => {
            setName(v.displayName);
            set("displayName", v.displayName);
            closeDrawer("saved");
          }}
        >
          <Form.Item label="Display name" name="displayName" rules={[{ required: true, message: "Enter a display name" }]}>
            <Input />
          </Form.Item>
        </Form>
      </Drawer>
    </>
  );
}
