// [overlays] a modal dialog, a drawer with a form field, and a notification.
import React, { useState } from 'react';
import { Button, Drawer, Group, Modal, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import { setState } from './state';

export const overlaysInitial = {
  modal: null,
  drawer: null,
  displayName: '',
  notification: null,
};

export function OverlaysPage() {
  const [modalOpened, modal] = useDisclosure(false);
  const [drawerOpened, drawer] = useDisclosure(false);
  const [name, setName] = useState('');
  const [status, setStatus] = useState('Nothing yet');

  const record = (key, value, text) => {
    setState(key, value);
    setStatus(text);
  };

  return (
    <Stack maw={520} p="md" gap="lg">
      <Title order={2}>Overlays</Title>

      <Modal
        opened={modalOpened}
        onClose={() => {
          modal.close();
          if (window.__state.modal === 'open') record('modal', 'dismissed', 'Deletion dismissed');
        }}
        title="Delete project?"
        closeButtonProps={{ 'aria-label': 'Close dialog' }}
      >
        <Text size="sm" mb="md">
          The project "Apollo" and its 24 tickets will be deleted. This cannot be undone.
        </Text>
        <Group justify="flex-end">
          <Button
            variant="default"
            onClick={() => {
              record('modal', 'cancelled', 'Deletion cancelled');
              modal.close();
            }}
          >
            Cancel
          </Button>
          <Button
            color="red"
            onClick={() => {
              record('modal', 'confirmed', 'Project deleted');
              modal.close();
            }}
          >
            OK
          </Button>
        </Group>
      </Modal>

      <Drawer
        opened={drawerOpened}
        onClose={() => {
          drawer.close();
          if (window.__state.drawer === 'open') record('drawer', 'dismissed', 'Profile not saved');
        }}
        title="Edit profile"
        position="right"
        closeButtonProps={{ 'aria-label': 'Close drawer' }}
      >
        <Stack>
          <TextInput
            label="Display name"
            placeholder="Your name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
          />
          <Button
            onClick={() => {
              setState('displayName', name);
              record('drawer', 'saved', `Profile saved: ${name}`);
              drawer.close();
            }}
          >
            Save
          </Button>
        </Stack>
      </Drawer>

      <Group>
        <Button
          color="red"
          variant="outline"
          onClick={() => {
            setState('modal', 'open');
            modal.open();
          }}
        >
          Delete project
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setState('drawer', 'open');
            drawer.open();
          }}
        >
          Edit profile
        </Button>
        <Button
          onClick={() => {
            setState('notification', 'shown');
            notifications.show({
              id: 'export-done',
              title: 'Export finished',
              message: 'Your report "March sales" is ready to download.',
              autoClose: false,
              withCloseButton: true,
              closeButtonProps: { 'aria-label': 'Close notification' },
              onClose: () => setState('notification', 'closed'),
            });
          }}
        >
          Export report
        </Button>
      </Group>
      <Text size="sm">Last result: {status}</Text>
    </Stack>
  );
}
