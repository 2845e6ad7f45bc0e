// The bundle's entry: window.Widgets.mount(name) renders one widget page inside MantineProvider.
import '@mantine/core/styles.css';
import '@mantine/dates/styles.css';
import '@mantine/notifications/styles.css';

import React, { useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { Notifications } from '@mantine/notifications';
import { initState } from './state';
import { SelectPage, selectInitial } from './select';
import { TreePage, treeInitial } from './tree';
import { DatesPage, datesInitial } from './dates';
import { InputsPage, inputsInitial } from './inputs';
import { NavPage, navInitial } from './nav';
import { OverlaysPage, overlaysInitial } from './overlays';
import { GridPage, gridInitial } from './grid';
import { ListsPage, listsInitial } from './lists';

const pages = {
  select: [SelectPage, selectInitial],
  tree: [TreePage, treeInitial],
  dates: [DatesPage, datesInitial],
  inputs: [InputsPage, inputsInitial],
  nav: [NavPage, navInitial],
  overlays: [OverlaysPage, overlaysInitial],
  grid: [GridPage, gridInitial],
  lists: [ListsPage, listsInitial],
};

function Root({ Page }) {
  useEffect(() => {
    window.__ready = true;
  }, []);
  return (
    <MantineProvider defaultColorScheme="light">
      <DatesProvider settings={{ firstDayOfWeek: 1 }}>
        <Notifications position="top-right" />
        <Page />
      </DatesProvider>
    </MantineProvider>
  );
}

function mount(name) {
  const entry = pages[name];
  if (!entry) throw new Error(`Widgets.mount: no page "${name}"`);
  const [Page, initial] = entry;
  window.__state = {};
  initState(JSON.parse(JSON.stringify(initial)));
  createRoot(document.getElementById('root')).render(<Root Page={Page} />);
}

window.Widgets = { mount, pages: Object.keys(pages) };
