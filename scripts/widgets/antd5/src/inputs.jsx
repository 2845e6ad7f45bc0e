import React from "react";
import { Form, InputNumber, Radio, Rate, Segmented, Select, Slider, Typography } from "antd";
import { set } from "./state.js";

export const initial = {
  volume: 30,
  priceRange: [20, 80],
  quantity: 1,
  rating: 3,
  view: "Weekly",
  alignment: "left",
  labels: ["bug"],
};

const labelOptions = ["bug", "feature", "documentation", "performance", "security", "design"].map((x) => ({ value: x, label: x }));

export function Page() {
  return (
    <>
      <Typography.Title level={2}>Preferences</Typography.Title>
      <Form
        name="prefs"
        layout="vertical"
        style={{ maxWidth: 480 }}
        initialValues={{
          volume: initial.volume,
          priceRange: initial.priceRange,
          quantity: initial.quantity,
          rating: initial.rating,
          view: initial.view,
          alignment: initial.alignment,
          labels: initial.labels,
        }}
      >
        <Form.Item label="Volume" name="volume">
          <Slider min={0} max={100} onChange={(v) => set("volume", v)} />
        </Form.Item>
        <Form.Item label="Price range" name="priceRange">
          <Slider range min={0} max={200} step={5} marks={{ 0: "$0", 100: "$100", 200: "$200" }} onChange={(v) => set("priceRange", v)} />
        </Form.Item>
        <Form.Item label="Quantity" name="quantity">
          <InputNumber min={1} max={10} step={1} onChange={(v) => set("quantity", v)} />
        </Form.Item>
        <Form.Item label="Rating" name="rating">
          <Rate tooltips={["terrible", "bad", "normal", "good", "wonderful"]} onChange={(v) => set("rating", v)} />
        </Form.Item>
        <Form.Item label="View" name="view">
          <Segmented options={["Daily", "Weekly", "Monthly", "Yearly"]} onChange={(v) => set("view", v)} />
        </Form.Item>
        <Form.Item label="Text alignment" name="alignment">
          <Radio.Group
            optionType="button"
            buttonStyle="solid"
            options={[
              { value: "left", label: "Left" },
              { value: "center", label: "Center" },
              { value: "right", label: "Right" },
              { value: "justify", label: "Justify", disabled: true },
            ]}
            onChange={(e) => set("alignment", e.target.value)}
          />
        </Form.Item>
        <Form.Item label="Labels" name="labels">
          <Select mode="tags" placeholder="Add labels" options={labelOptions} tokenSeparators={[","]} onChange={(v) => set("labels", v)} />
        </Form.Item>
      </Form>
    </>
  );
}
