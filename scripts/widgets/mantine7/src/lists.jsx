// [lists] the Mantine docs' TransferList (two Combobox lists with checkboxes and a move button
// each) and Selects over 1,000 options (Mantine does not virtualise: `limit`, or a scrolled list).
import React, { useState } from 'react';
import {
  ActionIcon, Checkbox, Combobox, Group, Select, Stack, Text, TextInput, Title, useCombobox,
} from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from './icons';
import { bins, employees } from './data';
import { setState } from './state';

const available = ['Alice Johnson', 'Bob Martin', 'Carla Gomez', 'David Chen', 'Emma Wilson', 'Farid Haddad', 'Grace Lee'];
const assigned = ['Hiro Tanaka', 'Ines Moreau', 'Jonas Berg'];

export const listsInitial = {
  available: [...available],
  assigned: [...assigned],
  employee: null,
  bin: null,
};

function RenderList({ title, options, onTransfer, type }) {
  const combobox = useCombobox();
  const [value, setValue] = useState([]);
  const [search, setSearch] = useState('');

  const handleValueSelect = (val) =>
    setValue((current) => (current.includes(val) ? current.filter((v) => v !== val) : [...current, val]));

  const items = options
    .filter((item) => item.toLowerCase().includes(search.toLowerCase().trim()))
    .map((item) => (
      <Combobox.Option
        value={item}
        key={item}
        active={value.includes(item)}
        onMouseOver={() => combobox.resetSelectedOption()}
      >
        <Group gap="sm">
          <Checkbox
            checked={value.includes(item)}
            onChange={() => {}}
            aria-hidden
            tabIndex={-1}
            style={{ pointerEvents: 'none' }}
          />
          <span>{item}</span>
        </Group>
      </Combobox.Option>
    ));

  return (
    <div style={{ flex: 1 }} data-type={type}>
      <Text fw={500} size="sm" mb={4}>{title}</Text>
      <Combobox store={combobox} onOptionSubmit={handleValueSelect}>
        <Combobox.EventsTarget>
          <Group wrap="nowrap" gap={0}>
            <TextInput
              placeholder="Search people"
              aria-label={`Search ${title.toLowerCase()}`}
              style={{ flex: 1 }}
              value={search}
              onChange={(event) => {
                setSearch(event.currentTarget.value);
                combobox.updateSelectedOptionIndex();
              }}
            />
            <ActionIcon
              radius={0}
              variant="default"
              size={36}
              aria-label={type === 'forward' ? 'Move selected to Assigned' : 'Move selected to Available'}
              onClick={() => {
                onTransfer(value);
                setValue([]);
              }}
            >
              {type === 'forward' ? <IconChevronRight size={18} /> : <IconChevronLeft size={18} />}
            </ActionIcon>
          </Group>
        </Combobox.EventsTarget>
        <div style={{ border: '1px solid var(--mantine-color-gray-3)', borderTop: 0, padding: 4, minHeight: 200 }}>
          <Combobox.Options aria-label={title}>
            {items.length > 0 ? items : <Combobox.Empty>Nothing found....</Combobox.Empty>}
          </Combobox.Options>
        </div>
      </Combobox>
    </div>
  );
}

function TransferList() {
  const [data, setData] = useState([available, assigned]);
  const handleTransfer = (from, options) =>
    setData((current) => {
      const to = from === 0 ? 1 : 0;
      const result = [];
      result[from] = current[from].filter((item) => !options.includes(item));
      result[to] = [...current[to], ...options];
      setState('available', result[0]);
      setState('assigned', result[1]);
      return result;
    });
  return (
    <div>
      <Title order={4} mb="xs">Project members</Title>
      <Group align="flex-start" gap="md" wrap="nowrap">
        <RenderList title="Available" type="forward" options={data[0]} onTransfer={(o) => handleTransfer(0, o)} />
        <RenderList title="Assigned" type="backward" options={data[1]} onTransfer={(o) => handleTransfer(1, o)} />
      </Group>
    </div>
  );
}

export function ListsPage() {
  return (
    <Stack maw={640} p="md" gap="lg">
      <Title order={2}>Lists</Title>
      <TransferList />
      <Select
        label="Employee"
        description="1,000 employees; type to search, 20 matches shown at a time"
        placeholder="Search employees"
        data={employees}
        searchable
        limit={20}
        nothingFoundMessage="No employee found"
        onChange={(v) => setState('employee', v)}
      />
      <Select
        label="Warehouse bin"
        description="1,000 bins in one scrolling list"
        placeholder="Pick a bin"
        data={bins}
        maxDropdownHeight={250}
        onChange={(v) => setState('bin', v)}
      />
    </Stack>
  );
}
