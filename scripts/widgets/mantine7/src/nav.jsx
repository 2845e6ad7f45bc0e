// [nav] tabs, a menu button, a stepper, an accordion, pagination, and icon-only buttons.
import React, { useState } from 'react';
import {
  Accordion, ActionIcon, Button, CloseButton, Group, Menu, Pagination, Stepper, Stack, Tabs,
  Text, Title,
} from '@mantine/core';
import { IconChevronDown, IconRefresh, IconSettings, IconTrash } from './icons';
import { setState } from './state';

export const navInitial = {
  tab: 'overview',
  menu: null,
  step: 0,
  accordion: 'shipping',
  page: 1,
  iconButton: null,
};

function StepperDemo() {
  const [active, setActive] = useState(0);
  const go = (n) => {
    setActive(n);
    setState('step', n);
  };
  return (
    <div>
      <Title order={4} mb="xs">Checkout</Title>
      <Stepper active={active} onStepClick={go} size="sm">
        <Stepper.Step label="Cart" description="Review items">
          <Text size="sm">Step 1: review the three items in your cart.</Text>
        </Stepper.Step>
        <Stepper.Step label="Shipping" description="Address">
          <Text size="sm">Step 2: enter the shipping address.</Text>
        </Stepper.Step>
        <Stepper.Step label="Payment" description="Card details">
          <Text size="sm">Step 3: pay by card.</Text>
        </Stepper.Step>
        <Stepper.Completed>
          <Text size="sm">Order placed. Thank you!</Text>
        </Stepper.Completed>
      </Stepper>
      <Group justify="center" mt="md">
        <Button variant="default" onClick={() => go(Math.max(0, active - 1))} disabled={active === 0}>
          Back
        </Button>
        <Button onClick={() => go(Math.min(3, active + 1))} disabled={active === 3}>
          Next
        </Button>
      </Group>
    </div>
  );
}

function PaginationDemo() {
  const [page, setPage] = useState(1);
  return (
    <div>
      <Title order={4} mb="xs">Search results</Title>
      <Text size="sm" mb="xs">Showing results page {page} of 10</Text>
      <Pagination
        total={10}
        value={page}
        onChange={(p) => {
          setPage(p);
          setState('page', p);
        }}
        getControlProps={(control) => ({
          'aria-label': { first: 'First page', previous: 'Previous page', next: 'Next page', last: 'Last page' }[control],
        })}
      />
    </div>
  );
}

export function NavPage() {
  const [lastAction, setLastAction] = useState('none');
  const icon = (name) => () => {
    setLastAction(name);
    setState('iconButton', name);
  };
  return (
    <Stack maw={640} p="md" gap="lg">
      <Title order={2}>Navigation widgets</Title>

      <Tabs defaultValue="overview" onChange={(v) => setState('tab', v)}>
        <Tabs.List aria-label="Project sections">
          <Tabs.Tab value="overview">Overview</Tabs.Tab>
          <Tabs.Tab value="activity">Activity</Tabs.Tab>
          <Tabs.Tab value="settings">Settings</Tabs.Tab>
          <Tabs.Tab value="archived" disabled>Archived</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="overview" pt="xs">Overview: 12 open tickets, 3 due this week.</Tabs.Panel>
        <Tabs.Panel value="activity" pt="xs">Activity: Grace Lee closed TCK-104.</Tabs.Panel>
        <Tabs.Panel value="settings" pt="xs">Settings: notifications are on.</Tabs.Panel>
      </Tabs>

      <Group>
        <Menu shadow="md" width={200}>
          <Menu.Target>
            <Button rightSection={<IconChevronDown size={14} />}>Actions</Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>Ticket</Menu.Label>
            <Menu.Item onClick={() => setState('menu', 'Edit')}>Edit</Menu.Item>
            <Menu.Item onClick={() => setState('menu', 'Duplicate')}>Duplicate</Menu.Item>
            <Menu.Item onClick={() => setState('menu', 'Archive')}>Archive</Menu.Item>
            <Menu.Item disabled>Export (coming soon)</Menu.Item>
            <Menu.Divider />
            <Menu.Label>Danger zone</Menu.Label>
            <Menu.Item color="red" onClick={() => setState('menu', 'Delete')}>Delete</Menu.Item>
          </Menu.Dropdown>
        </Menu>
      </Group>

      <StepperDemo />

      <div>
        <Title order={4} mb="xs">FAQ</Title>
        <Accordion defaultValue="shipping" onChange={(v) => setState('accordion', v)}>
          <Accordion.Item value="shipping">
            <Accordion.Control>How long does shipping take?</Accordion.Control>
            <Accordion.Panel>Orders ship within 2 business days.</Accordion.Panel>
          </Accordion.Item>
          <Accordion.Item value="returns">
            <Accordion.Control>Can I return an item?</Accordion.Control>
            <Accordion.Panel>Yes, within 30 days of delivery.</Accordion.Panel>
          </Accordion.Item>
          <Accordion.Item value="warranty">
            <Accordion.Control>Is there a warranty?</Accordion.Control>
            <Accordion.Panel>Every product has a two-year warranty.</Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      </div>

      <PaginationDemo />

      <div>
        <Title order={4} mb="xs">Toolbar</Title>
        <Group gap="xs">
          <ActionIcon variant="default" aria-label="Delete" onClick={icon('Delete')}>
            <IconTrash size={18} />
          </ActionIcon>
          <ActionIcon variant="filled" aria-label="Settings" onClick={icon('Settings')}>
            <IconSettings size={18} />
          </ActionIcon>
          <ActionIcon variant="light" title="Refresh" onClick={icon('Refresh')}>
            <IconRefresh size={18} />
          </ActionIcon>
          <CloseButton aria-label="Dismiss" onClick={icon('Dismiss')} />
        </Group>
        <Text size="sm" mt="xs">Last toolbar action: {lastAction}</Text>
      </div>
    </Stack>
  );
}
