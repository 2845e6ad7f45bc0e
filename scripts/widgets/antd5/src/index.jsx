// Entry of the Ant Design 5 widget bundle: window.Widgets.mount(name)
// renders one page (see ../../../../testdata/pages/widgets/antd5/README.md).
import React, { useEffect } from "react";
import { createRoot } from "react-dom/client";
import { App as AntApp, Layout } from "antd";
import * as select from "./select.jsx";
import * as tree from "./tree.jsx";
import * as dates from "./dates.jsx";
import * as inputs from "./inputs.jsx";
import * as nav from "./nav.jsx";
import * as overlays from "./overlays.jsx";
import * as grid from "./grid.jsx";
import * as lists from "./lists.jsx";

const pages = { select, tree, dates, inputs, nav, overlays, grid, lists };

function Root({ children }) {
  useEffect(() => {
    window.__ready = true;
  }, []);
  return (
    <AntApp>
      <Layout style={{ minHeight: "100vh", background: "#fff" }}>
        <Layout.Content style={{ padding: "24px 32px", maxWidth: 960 }}>{children}</Layout.Content>
      </Layout>
    </AntApp>
  );
}

function mount(name) {
  const page = pages[name];
  if (!page) throw new Error("Widgets.mount: no page " + JSON.stringify(name));
  window.__ready = false;
  window.__state = JSON.parse(JSON.stringify(page.initial));
  const Page = page.Page;
  createRoot(document.getElementById("root")).render(
    <Root>
      <Page />
    </Root>
  );
}

window.Widgets = { mount, pages: Object.keys(pages) };
