// [inputs] slider, range slider, number input, rating, segmented control, toggle group, tags.
import React from 'react';
import {
  Chip, Group, Input, NumberInput, Rating, RangeSlider, SegmentedControl, Slider, Stack,
  TagsInput, Text, Title,
} from '@mantine/core';
import { setState } from './state';

export const inputsInitial = {
  volume: 40,
  priceRange: [20, 80],
  quantity: 2,
  rating: 3,
  view: 'list',
  notifyBy: ['email'],
  labels: ['bug', 'frontend'],
};

export function InputsPage() {
  return (
    <Stack maw={460} p="md" gap="lg">
      <Title order={2}>Input widgets</Title>

      <div>
        <Text size="sm" fw={500} id="volume-label">Volume</Text>
        <Slider
          aria-labelledby="volume-label"
          thumbLabel="Volume"
          defaultValue={40}
          min={0}
          max={100}
          step={5}
          marks={[{ value: 0, label: '0' }, { value: 50, label: '50' }, { value: 100, label: '100' }]}
          onChangeEnd={(v) => setState('volume', v)}
          onChange={(v) => setState('volume', v)}
          mb="md"
        />
      </div>

      <div>
        <Text size="sm" fw={500} id="price-label">Price range ($)</Text>
        <RangeSlider
          aria-labelledby="price-label"
          thumbFromLabel="Minimum price"
          thumbToLabel="Maximum price"
          defaultValue={[20, 80]}
          min={0}
          max={100}
          step={1}
          minRange={5}
          onChange={(v) => setState('priceRange', v)}
        />
      </div>

      <NumberInput
        label="Quantity"
        description="Between 1 and 10"
        defaultValue={2}
        min={1}
        max={10}
        step={1}
        clampBehavior="strict"
        onChange={(v) => setState('quantity', v === '' ? null : Number(v))}
      />

      <Input.Wrapper label="Rating" labelElement="div">
        <Rating name="rating" defaultValue={3} onChange={(v) => setState('rating', v)} />
      </Input.Wrapper>

      <Input.Wrapper label="View" labelElement="div">
        <div>
          <SegmentedControl
            name="view"
            defaultValue="list"
            data={[
              { label: 'List', value: 'list' },
              { label: 'Board', value: 'board' },
              { label: 'Calendar', value: 'calendar' },
            ]}
            onChange={(v) => setState('view', v)}
          />
        </div>
      </Input.Wrapper>

      <Input.Wrapper label="Notify me by" labelElement="div">
        <Chip.Group multiple defaultValue={['email']} onChange={(v) => setState('notifyBy', v)}>
          <Group gap="xs" mt={4}>
            <Chip value="email">Email</Chip>
            <Chip value="sms">SMS</Chip>
            <Chip value="push">Push</Chip>
          </Group>
        </Chip.Group>
      </Input.Wrapper>

      <TagsInput
        label="Labels"
        description="Press Enter to add a label"
        placeholder="Add a label"
        defaultValue={['bug', 'frontend']}
        data={['bug', 'feature', 'frontend', 'backend', 'urgent', 'documentation']}
        clearable
        onChange={(v) => setState('labels', v)}
      />
    </Stack>
  );
}
