// [dates] date picker, typed date input, two time inputs (one with the docs' browser-picker
// button; Mantine 7.17 does not export TimePicker), and a date-range picker.
import React, { useRef } from 'react';
import { ActionIcon, Stack, Title } from '@mantine/core';
import { DateInput, DatePickerInput, TimeInput } from '@mantine/dates';
import { IconCalendar, IconClock } from './icons';
import { day, setState } from './state';

const march15 = new Date(2026, 2, 15);

export const datesInitial = {
  startDate: null,
  invoiceDate: '2026-03-15',
  meetingTime: '',
  reminderTime: '',
  tripDates: [null, null],
};

export function DatesPage() {
  const reminderRef = useRef(null);
  return (
    <Stack maw={420} p="md" gap="lg">
      <Title order={2}>Date and time pickers</Title>
      <DatePickerInput
        label="Start date"
        placeholder="Pick a date"
        valueFormat="YYYY-MM-DD"
        defaultDate={march15}
        clearable
        leftSection={<IconCalendar size={16} />}
        onChange={(d) => setState('startDate', day(d))}
      />
      <DateInput
        label="Invoice date"
        placeholder="YYYY-MM-DD"
        valueFormat="YYYY-MM-DD"
        defaultValue={march15}
        defaultDate={march15}
        onChange={(d) => setState('invoiceDate', day(d))}
      />
      <TimeInput
        label="Meeting time"
        leftSection={<IconClock size={16} />}
        onChange={(e) => setState('meetingTime', e.currentTarget.value)}
      />
      <TimeInput
        label="Reminder time"
        ref={reminderRef}
        rightSection={
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label="Show time picker"
            onClick={() => reminderRef.current && reminderRef.current.showPicker()}
          >
            <IconClock size={16} />
          </ActionIcon>
        }
        onChange={(e) => setState('reminderTime', e.currentTarget.value)}
      />
      <DatePickerInput
        type="range"
        label="Trip dates"
        placeholder="Pick the first and last day"
        valueFormat="YYYY-MM-DD"
        defaultDate={march15}
        clearable
        onChange={(r) => setState('tripDates', [day(r[0]), day(r[1])])}
      />
    </Stack>
  );
}
