// Page "select": single Select, multiple Select with chips, Autocomplete, freeSolo Autocomplete.
import * as React from 'react';
import Stack from '@mui/material/Stack';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import Select from '@mui/material/Select';
import MenuItem from '@mui/material/MenuItem';
import OutlinedInput from '@mui/material/OutlinedInput';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import TextField from '@mui/material/TextField';
import Autocomplete from '@mui/material/Autocomplete';
import Section from './Section.jsx';
import { setState } from './state.js';
import { departments, skills, countries, jobTitles } from './data.js';

export const heading = 'Select and autocomplete';

export const initialState = {
  department: 'Engineering',
  skills: ['React', 'Go'],
  country: null,
  jobTitle: null,
  jobTitleText: '',
};

function DepartmentSelect() {
  const [value, setValue] = React.useState(initialState.department);
  return (
    <FormControl sx={{ minWidth: 260 }}>
      <InputLabel id="department-label">Department</InputLabel>
      <Select
        labelId="department-label"
        id="department"
        value={value}
        label="Department"
        onChange={(e) => {
          setValue(e.target.value);
          setState('department', e.target.value);
        }}
      >
        {departments.map((d) => (
          <MenuItem key={d} value={d}>
            {d}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}

function SkillsSelect() {
  const [value, setValue] = React.useState(initialState.skills);
  return (
    <FormControl sx={{ minWidth: 360 }}>
      <InputLabel id="skills-label">Skills</InputLabel>
      <Select
        labelId="skills-label"
        id="skills"
        multiple
        value={value}
        onChange={(e) => {
          const v = typeof e.target.value === 'string' ? e.target.value.split(',') : e.target.value;
          setValue(v);
          setState('skills', v);
        }}
        input={<OutlinedInput id="skills-input" label="Skills" />}
        renderValue={(selected) => (
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 0.5 }}>
            {selected.map((s) => (
              <Chip key={s} label={s} size="small" />
            ))}
          </Box>
        )}
      >
        {skills.map((s) => (
          <MenuItem key={s} value={s}>
            {s}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}

function CountryAutocomplete() {
  return (
    <Autocomplete
      id="country"
      options={countries}
      sx={{ width: 300 }}
      onChange={(_, v) => setState('country', v)}
      renderInput={(params) => <TextField {...params} label="Country" />}
    />
  );
}

function JobTitleCombobox() {
  return (
    <Autocomplete
      id="job-title"
      freeSolo
      options={jobTitles}
      sx={{ width: 360 }}
      onChange={(_, v) => setState('jobTitle', v)}
      onInputChange={(_, v) => setState('jobTitleText', v)}
      renderInput={(params) => (
        <TextField {...params} label="Job title" helperText="Pick a title or type your own" />
      )}
    />
  );
}

export function Page() {
  return (
    <Stack>
      <Section title="Team">
        <DepartmentSelect />
      </Section>
      <Section title="Skills">
        <SkillsSelect />
      </Section>
      <Section title="Country of residence">
        <CountryAutocomplete />
      </Section>
      <Section title="Position">
        <JobTitleCombobox />
      </Section>
    </Stack>
  );
}
