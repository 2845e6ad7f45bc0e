import React, { useState } from "react";
import { Avatar, Button, Form, List, Select, Transfer, Typography } from "antd";
import VirtualList from "rc-virtual-list";
import { set } from "./state.js";

export const initial = {
  members: ["p2", "p5"],
  product: null,
  contact: null,
};

const people = [
  "Alice Johnson", "Bruno Silva", "Chen Wei", "Dana Kaplan", "Emeka Obi", "Fatima Zahra",
  "Gustav Berg", "Hana Sato", "Ivan Petrov", "Julia Rossi", "Kofi Mensah", "Lena Fischer",
].map((name, i) => ({ key: `p${i + 1}`, title: name, description: ["Engineer", "Designer", "Manager", "Analyst"][i % 4] }));

const adjectives = ["Compact", "Deluxe", "Eco", "Heavy-duty", "Mini", "Pro", "Smart", "Ultra", "Classic", "Travel"];
const nouns = ["Desk Lamp", "Kettle", "Backpack", "Headphones", "Monitor Arm", "Notebook", "Office Chair", "Water Bottle", "Keyboard", "Umbrella"];
const colours = ["Black", "White", "Red", "Blue", "Green", "Grey", "Yellow", "Orange", "Purple", "Silver"];

// 1,000 products, the same on every load: SKU-0001 … SKU-1000.
const products = Array.from({ length: 1000 }, (_, i) => {
  const sku = `SKU-${String(i + 1).padStart(4, "0")}`;
  const label = `${sku} ${adjectives[i % 10]} ${nouns[Math.floor(i / 10) % 10]} ${colours[Math.floor(i / 100) % 10]}`;
  return { value: sku, label };
});

const first = ["Ava", "Ben", "Cara", "Dev", "Eli", "Fay", "Gil", "Hugo", "Iris", "Jon", "Kai", "Lia", "Max", "Nia", "Omar", "Pia", "Quinn", "Rosa", "Sam", "Tara", "Uma", "Vik", "Wren", "Xena", "Yuri"];
const last = ["Adams", "Brooks", "Costa", "Diaz", "Evans", "Fox", "Garcia", "Hughes", "Ito", "Jensen", "Khan", "Lopez", "Moreau", "Novak", "Okafor", "Park", "Quist", "Reyes", "Singh", "Tanaka", "Ueda", "Vance", "Weber", "Young", "Zhou", "Abbott", "Baker", "Chopra", "Dubois", "Eriksen", "Ferrari", "Gupta", "Holm", "Ivanova", "Jaeger", "Kowalski", "Lind", "Mori", "Nagy", "Olsen"];

// 1,000 contacts with distinct names, the same on every load.
const contacts = Array.from({ length: 1000 }, (_, i) => {
  const name = `${first[i % first.length]} ${last[Math.floor(i / first.length) % last.length]}`;
  return { id: i + 1, name, email: `${name.toLowerCase().replace(" ", ".")}@example.com` };
});

export function Page() {
  const [members, setMembers] = useState(initial.members);
  return (
    <>
      <Typography.Title level={2}>Project setup</Typography.Title>
      <Typography.Title level={4}>Project members</Typography.Title>
      <Transfer
        dataSource={people}
        titles={["Available", "Members"]}
        targetKeys={members}
        showSearch
        listStyle={{ width: 260, height: 320 }}
        render={(p) => p.title}
        onChange={(keys) => {
          setMembers(keys);
          set("members", keys);
        }}
      />

      <Form name="order" layout="vertical" style={{ maxWidth: 480, marginTop: 24 }}>
        <Form.Item label="Product" name="product">
          <Select showSearch placeholder="Choose one of 1,000 products" options={products} optionFilterProp="label" onChange={(v) => set("product", v)} />
        </Form.Item>
      </Form>

      <Typography.Title level={4}>Contacts</Typography.Title>
      <List bordered style={{ maxWidth: 480 }}>
        <VirtualList data={contacts} height={320} itemHeight={57} itemKey="id">
          {(c) => (
            <List.Item key={c.id}>
              <List.Item.Meta
                avatar={<Avatar>{c.name[0]}</Avatar>}
                title={
                  <Button type="link" style={{ padding: 0, height: "auto" }} onClick={() => set("contact", c.name)}>
                    {c.name}
                  </Button>
                }
                description={c.email}
              />
            </List.Item>
          )}
        </VirtualList>
      </List>
    </>
  );
}
