// Page "dates": DatePicker with a value, empty TimePicker, and a From/To pair of
// DatePickers (MUI X v7 community has no date-range picker).
import * as React from 'react';
import Stack from '@mui/material/Stack';
import dayjs from 'dayjs';
import { DatePicker } from '@mui/x-date-pickers/DatePicker';
import { TimePicker } from '@mui/x-date-pickers/TimePicker';
import Section from './Section.jsx';
import { setState, DAY, TIME } from './state.js';

export const heading = 'Dates and times';

// The pickers open on March 2026 whatever today is; "@media all" keeps the
// desktop (popover) variant whatever pointer the browser reports.
const REFERENCE = dayjs('2026-03-15T09:00');
const DESKTOP = '@media all';

export const initialState = {
  deliveryDate: '2026-03-15',
  meetingTime: null,
  fromDate: null,
  toDate: null,
};

const day = (v) => (v && v.isValid() ? v.format(DAY) : null);
const time = (v) => (v && v.isValid() ? v.format(TIME) : null);

export function Page() {
  const [from, setFrom] = React.useState(null);
  const [to, setTo] = React.useState(null);
  return (
    <Stack>
      <Section title="Delivery">
        <DatePicker
          label="Delivery date"
          defaultValue={dayjs(initialState.deliveryDate)}
          desktopModeMediaQuery={DESKTOP}
          onChange={(v) => setState('deliveryDate', day(v))}
        />
      </Section>
      <Section title="Meeting">
        <TimePicker
          label="Meeting time"
          referenceDate={REFERENCE}
          desktopModeMediaQuery={DESKTOP}
          onChange={(v) => setState('meetingTime', time(v))}
        />
      </Section>
      <Section title="Vacation">
        <Stack direction="row" spacing={2}>
          <DatePicker
            label="From"
            value={from}
            referenceDate={REFERENCE}
            maxDate={to || undefined}
            desktopModeMediaQuery={DESKTOP}
            onChange={(v) => {
              setFrom(v);
              setState('fromDate', day(v));
            }}
          />
          <DatePicker
            label="To"
            value={to}
            referenceDate={REFERENCE}
            minDate={from || undefined}
            desktopModeMediaQuery={DESKTOP}
            onChange={(v) => {
              setTo(v);
              setState('toDate', day(v));
            }}
          />
        </Stack>
      </Section>
    </Stack>
  );
}
