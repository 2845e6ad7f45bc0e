// [grid] 60 tickets in a Mantine Table with sortable headers, row checkboxes and Pagination,
// built as the Mantine docs' "Table with row selection" and "Table with sort" examples.
import React, { useMemo, useState } from 'react';
import {
  Center, Checkbox, Group, Pagination, Stack, Table, Text, Title, UnstyledButton,
} from '@mantine/core';
import { IconChevronDown, IconChevronUp, IconSelector } from './icons';
import { tickets } from './data';
import { setState } from './state';

const PAGE_SIZE = 10;
const columns = [
  { field: 'id', label: 'ID' },
  { field: 'title', label: 'Title' },
  { field: 'status', label: 'Status' },
  { field: 'priority', label: 'Priority' },
  { field: 'assignee', label: 'Assignee' },
];
const priorityRank = { Low: 0, Medium: 1, High: 2, Critical: 3 };

export const gridInitial = {
  selected: [],
  sort: { field: 'id', dir: 'asc' },
  page: 1,
};

function Th({ children, sorted, reversed, onSort }) {
  const Icon = sorted ? (reversed ? IconChevronUp : IconChevronDown) : IconSelector;
  return (
    <Table.Th aria-sort={sorted ? (reversed ? 'descending' : 'ascending') : 'none'} p={0}>
      <UnstyledButton onClick={onSort} px="sm" py={6} w="100%">
        <Group justify="space-between" wrap="nowrap">
          <Text fw={500} fz="sm">{children}</Text>
          <Center>
            <Icon size={16} stroke={1.5} />
          </Center>
        </Group>
      </UnstyledButton>
    </Table.Th>
  );
}

function compare(a, b, field) {
  if (field === 'priority') return priorityRank[a.priority] - priorityRank[b.priority];
  return a[field].localeCompare(b[field]);
}

export function GridPage() {
  const [sort, setSort] = useState({ field: 'id', dir: 'asc' });
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState([]);

  const sorted = useMemo(() => {
    const rows = [...tickets].sort((a, b) => compare(a, b, sort.field));
    return sort.dir === 'desc' ? rows.reverse() : rows;
  }, [sort]);
  const total = Math.ceil(sorted.length / PAGE_SIZE);
  const pageRows = sorted.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);

  const updateSelected = (next) => {
    setSelected(next);
    setState('selected', next);
  };
  const onSort = (field) => {
    const dir = sort.field === field && sort.dir === 'asc' ? 'desc' : 'asc';
    const next = { field, dir };
    setSort(next);
    setState('sort', next);
    setPage(1);
    setState('page', 1);
  };

  const pageIds = pageRows.map((r) => r.id);
  const allOnPage = pageIds.every((id) => selected.includes(id));
  const someOnPage = pageIds.some((id) => selected.includes(id));

  const rows = pageRows.map((t) => {
    const isSelected = selected.includes(t.id);
    return (
      <Table.Tr key={t.id} bg={isSelected ? 'var(--mantine-color-blue-light)' : undefined}>
        <Table.Td>
          <Checkbox
            aria-label={`Select ${t.id}`}
            checked={isSelected}
            onChange={(event) =>
              updateSelected(
                event.currentTarget.checked ? [...selected, t.id] : selected.filter((id) => id !== t.id),
              )
            }
          />
        </Table.Td>
        <Table.Td>{t.id}</Table.Td>
        <Table.Td>{t.title}</Table.Td>
        <Table.Td>{t.status}</Table.Td>
        <Table.Td>{t.priority}</Table.Td>
        <Table.Td>{t.assignee}</Table.Td>
      </Table.Tr>
    );
  });

  return (
    <Stack p="md" gap="md" maw={900}>
      <Title order={2} id="tickets-heading">Tickets</Title>
      <Table striped highlightOnHover withTableBorder aria-labelledby="tickets-heading">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <Checkbox
                aria-label="Select all rows on this page"
                checked={allOnPage}
                indeterminate={someOnPage && !allOnPage}
                onChange={() =>
                  updateSelected(
                    allOnPage
                      ? selected.filter((id) => !pageIds.includes(id))
                      : [...selected, ...pageIds.filter((id) => !selected.includes(id))],
                  )
                }
              />
            </Table.Th>
            {columns.map((c) => (
              <Th
                key={c.field}
                sorted={sort.field === c.field}
                reversed={sort.dir === 'desc'}
                onSort={() => onSort(c.field)}
              >
                {c.label}
              </Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>{rows}</Table.Tbody>
      </Table>
      <Group justify="space-between">
        <Text size="sm">
          {selected.length} selected · page {page} of {total} · {tickets.length} tickets
        </Text>
        <Pagination
          total={total}
          value={page}
          onChange={(p) => {
            setPage(p);
            setState('page', p);
          }}
          getControlProps={(control) => ({
            'aria-label': { first: 'First page', previous: 'Previous page', next: 'Next page', last: 'Last page' }[control],
          })}
        />
      </Group>
    </Stack>
  );
}
