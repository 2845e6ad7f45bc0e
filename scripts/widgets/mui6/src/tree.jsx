// Page "tree": grouped Autocomplete (MUI's closest to a cascader), RichTreeView with
// checkbox selection (a tree select), SimpleTreeView with expand and collapse.
import * as React from 'react';
import Stack from '@mui/material/Stack';
import Box from '@mui/material/Box';
import TextField from '@mui/material/TextField';
import Autocomplete from '@mui/material/Autocomplete';
import { RichTreeView } from '@mui/x-tree-view/RichTreeView';
import { SimpleTreeView } from '@mui/x-tree-view/SimpleTreeView';
import { TreeItem } from '@mui/x-tree-view/TreeItem';
import Section from './Section.jsx';
import { setState } from './state.js';

export const heading = 'Trees';

const offices = [
  { country: 'France', city: 'Lyon' },
  { country: 'France', city: 'Paris' },
  { country: 'Germany', city: 'Berlin' },
  { country: 'Germany', city: 'Munich' },
  { country: 'Japan', city: 'Osaka' },
  { country: 'Japan', city: 'Tokyo' },
  { country: 'United States', city: 'Austin' },
  { country: 'United States', city: 'New York' },
  { country: 'United States', city: 'San Francisco' },
];

const teams = [
  {
    id: 'company',
    label: 'Company',
    children: [
      {
        id: 'engineering',
        label: 'Engineering',
        children: [
          { id: 'frontend', label: 'Frontend' },
          { id: 'backend', label: 'Backend' },
          { id: 'platform', label: 'Platform' },
        ],
      },
      {
        id: 'design',
        label: 'Design',
        children: [
          { id: 'product-design', label: 'Product design' },
          { id: 'brand', label: 'Brand' },
        ],
      },
      {
        id: 'sales',
        label: 'Sales',
        children: [
          { id: 'emea', label: 'EMEA' },
          { id: 'americas', label: 'Americas' },
        ],
      },
    ],
  },
];

export const initialState = {
  office: null,
  teams: ['backend'],
  teamsExpanded: ['company', 'engineering'],
  file: null,
  filesExpanded: [],
};

function OfficePicker() {
  return (
    <Autocomplete
      id="office"
      options={offices}
      groupBy={(o) => o.country}
      getOptionLabel={(o) => o.country + ' / ' + o.city}
      isOptionEqualToValue={(a, b) => a.country === b.country && a.city === b.city}
      sx={{ width: 360 }}
      onChange={(_, v) => setState('office', v ? v.country + ' / ' + v.city : null)}
      renderInput={(params) => <TextField {...params} label="Office location" />}
    />
  );
}

function TeamsTree() {
  return (
    <Box sx={{ minHeight: 300, minWidth: 300 }}>
      <RichTreeView
        aria-label="Teams with access"
        items={teams}
        checkboxSelection
        multiSelect
        defaultSelectedItems={initialState.teams}
        defaultExpandedItems={initialState.teamsExpanded}
        onSelectedItemsChange={(_, ids) => setState('teams', ids)}
        onExpandedItemsChange={(_, ids) => setState('teamsExpanded', ids)}
      />
    </Box>
  );
}

function FilesTree() {
  return (
    <Box sx={{ minHeight: 260, minWidth: 300 }}>
      <SimpleTreeView
        aria-label="Project files"
        onSelectedItemsChange={(_, id) => setState('file', id)}
        onExpandedItemsChange={(_, ids) => setState('filesExpanded', ids)}
      >
        <TreeItem itemId="src" label="src">
          <TreeItem itemId="components" label="components">
            <TreeItem itemId="button-jsx" label="Button.jsx" />
            <TreeItem itemId="menu-jsx" label="Menu.jsx" />
          </TreeItem>
          <TreeItem itemId="index-js" label="index.js" />
        </TreeItem>
        <TreeItem itemId="docs" label="docs">
          <TreeItem itemId="readme-md" label="README.md" />
          <TreeItem itemId="changelog-md" label="CHANGELOG.md" />
        </TreeItem>
        <TreeItem itemId="package-json" label="package.json" />
      </SimpleTreeView>
    </Box>
  );
}

export function Page() {
  return (
    <Stack>
      <Section title="Office location (country, then city)">
        <OfficePicker />
      </Section>
      <Section title="Teams with access">
        <TeamsTree />
      </Section>
      <Section title="Project files">
        <FilesTree />
      </Section>
    </Stack>
  );
}
