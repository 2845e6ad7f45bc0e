// [select] single select, multi select, autocomplete, and a combobox that accepts free text.
import React, { useState } from 'react';
import {
  Autocomplete, Combobox, InputBase, MultiSelect, Select, Stack, Title, useCombobox,
} from '@mantine/core';
import { countries, departments, people } from './data';
import { setState } from './state';

const initialProjects = ['Apollo', 'Borealis', 'Cygnus', 'Daedalus', 'Eclipse'];

// ProjectCombobox is the docs' "Select creatable" Combobox example: typing a name that is not in
// the list offers "+ Create NAME".
function ProjectCombobox() {
  const combobox = useCombobox({ onDropdownClose: () => combobox.resetSelectedOption() });
  const [data, setData] = useState(initialProjects);
  const [value, setValue] = useState(null);
  const [search, setSearch] = useState('');

  const exactOptionMatch = data.some((item) => item === search);
  const filteredOptions = exactOptionMatch
    ? data
    : data.filter((item) => item.toLowerCase().includes(search.toLowerCase().trim()));

  const options = filteredOptions.map((item) => (
    <Combobox.Option value={item} key={item}>
      {item}
    </Combobox.Option>
  ));

  return (
    <Combobox
      store={combobox}
      withinPortal={true}
      onOptionSubmit={(val) => {
        let next = val;
        if (val === '$create') {
          next = search;
          setData((current) => [...current, search]);
        }
        setValue(next);
        setSearch(next);
        setState('project', next);
        combobox.closeDropdown();
      }}
    >
      <Combobox.Target>
        <InputBase
          label="Project"
          description="Pick a project or type a new name"
          rightSection={<Combobox.Chevron />}
          value={search}
          onChange={(event) => {
            combobox.openDropdown();
            combobox.updateSelectedOptionIndex();
            setSearch(event.currentTarget.value);
          }}
          onClick={() => combobox.openDropdown()}
          onFocus={() => combobox.openDropdown()}
          onBlur={() => {
            combobox.closeDropdown();
            setSearch(value || '');
          }}
          placeholder="Search or create a project"
          rightSectionPointerEvents="none"
        />
      </Combobox.Target>

      <Combobox.Dropdown>
        <Combobox.Options>
          {options}
          {!exactOptionMatch && search.trim().length > 0 && (
            <Combobox.Option value="$create">+ Create {search}</Combobox.Option>
          )}
        </Combobox.Options>
      </Combobox.Dropdown>
    </Combobox>
  );
}

export const selectInitial = {
  department: 'Engineering',
  teamMembers: ['Alice Johnson', 'David Chen'],
  country: '',
  project: null,
};

export function SelectPage() {
  return (
    <Stack maw={420} p="md" gap="lg">
      <Title order={2}>Select widgets</Title>
      <Select
        label="Department"
        placeholder="Pick a department"
        data={departments}
        defaultValue="Engineering"
        onChange={(v) => setState('department', v)}
      />
      <MultiSelect
        label="Team members"
        placeholder="Add people"
        data={people}
        defaultValue={['Alice Johnson', 'David Chen']}
        searchable
        clearable
        onChange={(v) => setState('teamMembers', v)}
      />
      <Autocomplete
        label="Country"
        placeholder="Start typing a country"
        data={countries}
        onChange={(v) => setState('country', v)}
      />
      <ProjectCombobox />
    </Stack>
  );
}
