import React from "react";
import dayjs from "dayjs";
import { DatePicker, Form, TimePicker, Typography } from "antd";
import { day, set } from "./state.js";

export const initial = {
  startDate: null,
  invoiceDate: "2026-03-10",
  meetingTime: null,
  vacation: null,
};

// Every picker opens on March 2026.
const march = dayjs("2026-03-15");

export function Page() {
  return (
    <>
      <Typography.Title level={2}>Schedule</Typography.Title>
      <Form name="schedule" layout="vertical" style={{ maxWidth: 480 }} initialValues={{ invoiceDate: dayjs(initial.invoiceDate) }}>
        <Form.Item label="Start date" name="startDate">
          <DatePicker defaultPickerValue={march} onChange={(d) => set("startDate", day(d))} />
        </Form.Item>
        <Form.Item label="Invoice date" name="invoiceDate">
          <DatePicker defaultPickerValue={march} onChange={(d) => set("invoiceDate", day(d))} />
        </Form.Item>
        <Form.Item label="Meeting time" name="meetingTime">
          <TimePicker format="HH:mm" minuteStep={5} onChange={(t) => set("meetingTime", t ? t.format("HH:mm") : null)} />
        </Form.Item>
        <Form.Item label="Vacation" name="vacation">
          <DatePicker.RangePicker
            defaultPickerValue={[march, march.add(1, "month")]}
            placeholder={["From", "To"]}
            onChange={(r) => set("vacation", r ? [day(r[0]), day(r[1])] : null)}
          />
        </Form.Item>
      </Form>
    </>
  );
}
