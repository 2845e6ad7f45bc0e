// Page "inputs": Slider, range Slider, TextField type=number, Rating, exclusive
// ToggleButtonGroup (MUI's segmented control), multiple ToggleButtonGroup with icon
// buttons, and a tags input (Autocomplete multiple freeSolo).
import * as React from 'react';
import Stack from '@mui/material/Stack';
import Box from '@mui/material/Box';
import Slider from '@mui/material/Slider';
import TextField from '@mui/material/TextField';
import Rating from '@mui/material/Rating';
import Typography from '@mui/material/Typography';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Autocomplete from '@mui/material/Autocomplete';
import Chip from '@mui/material/Chip';
import FormatBoldIcon from '@mui/icons-material/FormatBold';
import FormatItalicIcon from '@mui/icons-material/FormatItalic';
import FormatUnderlinedIcon from '@mui/icons-material/FormatUnderlined';
import Section from './Section.jsx';
import { setState } from './state.js';

export const heading = 'Inputs';

export const initialState = {
  volume: 30,
  priceRange: [200, 800],
  quantity: 2,
  rating: 3,
  view: 'list',
  formats: ['bold'],
  tags: ['urgent', 'backend'],
};

function VolumeSlider() {
  const [v, setV] = React.useState(initialState.volume);
  return (
    <Box sx={{ width: 300 }}>
      <Typography id="volume-label" gutterBottom>
        Volume
      </Typography>
      <Slider
        aria-labelledby="volume-label"
        value={v}
        min={0}
        max={100}
        valueLabelDisplay="auto"
        onChange={(_, nv) => {
          setV(nv);
          setState('volume', nv);
        }}
      />
    </Box>
  );
}

function PriceSlider() {
  const [v, setV] = React.useState(initialState.priceRange);
  return (
    <Box sx={{ width: 300 }}>
      <Typography id="price-label" gutterBottom>
        Price range (USD)
      </Typography>
      <Slider
        getAriaLabel={(i) => (i === 0 ? 'Minimum price' : 'Maximum price')}
        getAriaValueText={(x) => '$' + x}
        value={v}
        min={0}
        max={1000}
        step={10}
        valueLabelDisplay="auto"
        disableSwap
        onChange={(_, nv) => {
          setV(nv);
          setState('priceRange', nv);
        }}
      />
      <Typography variant="body2">
        ${v[0]} – ${v[1]}
      </Typography>
    </Box>
  );
}

function QuantityInput() {
  const [v, setV] = React.useState(String(initialState.quantity));
  return (
    <TextField
      id="quantity"
      label="Quantity"
      type="number"
      value={v}
      sx={{ width: 160 }}
      slotProps={{ htmlInput: { min: 1, max: 99, step: 1 } }}
      helperText="1 to 99"
      onChange={(e) => {
        setV(e.target.value);
        const n = e.target.value === '' ? null : Number(e.target.value);
        setState('quantity', n);
      }}
    />
  );
}

function ProductRating() {
  const [v, setV] = React.useState(initialState.rating);
  return (
    <Box>
      <Typography component="legend">Product rating</Typography>
      <Rating
        name="product-rating"
        value={v}
        onChange={(_, nv) => {
          setV(nv);
          setState('rating', nv);
        }}
      />
    </Box>
  );
}

function ViewToggle() {
  const [v, setV] = React.useState(initialState.view);
  return (
    <ToggleButtonGroup
      color="primary"
      value={v}
      exclusive
      aria-label="Layout"
      onChange={(_, nv) => {
        if (nv === null) return; // keep one selected, as a segmented control does
        setV(nv);
        setState('view', nv);
      }}
    >
      <ToggleButton value="list">List</ToggleButton>
      <ToggleButton value="board">Board</ToggleButton>
      <ToggleButton value="calendar">Calendar</ToggleButton>
    </ToggleButtonGroup>
  );
}

function FormatToggle() {
  const [v, setV] = React.useState(initialState.formats);
  return (
    <ToggleButtonGroup
      value={v}
      aria-label="Text formatting"
      onChange={(_, nv) => {
        setV(nv);
        setState('formats', nv);
      }}
    >
      <ToggleButton value="bold" aria-label="Bold">
        <FormatBoldIcon />
      </ToggleButton>
      <ToggleButton value="italic" aria-label="Italic">
        <FormatItalicIcon />
      </ToggleButton>
      <ToggleButton value="underlined" aria-label="Underline">
        <FormatUnderlinedIcon />
      </ToggleButton>
    </ToggleButtonGroup>
  );
}

function TagsInput() {
  const [v, setV] = React.useState(initialState.tags);
  return (
    <Autocomplete
      id="tags"
      multiple
      freeSolo
      options={['urgent', 'backend', 'frontend', 'bug', 'feature', 'documentation', 'security']}
      value={v}
      sx={{ width: 420 }}
      onChange={(_, nv) => {
        setV(nv);
        setState('tags', nv);
      }}
      renderTags={(value, getTagProps) =>
        value.map((option, index) => {
          const { key, ...tagProps } = getTagProps({ index });
          return <Chip key={key} variant="outlined" size="small" label={option} {...tagProps} />;
        })
      }
      renderInput={(params) => (
        <TextField {...params} label="Tags" placeholder="Add a tag and press Enter" />
      )}
    />
  );
}

export function Page() {
  return (
    <Stack>
      <Section title="Sound">
        <VolumeSlider />
      </Section>
      <Section title="Price filter">
        <PriceSlider />
      </Section>
      <Section title="Order">
        <QuantityInput />
      </Section>
      <Section title="Review">
        <ProductRating />
      </Section>
      <Section title="Layout">
        <ViewToggle />
      </Section>
      <Section title="Text formatting">
        <FormatToggle />
      </Section>
      <Section title="Ticket tags">
        <TagsInput />
      </Section>
    </Stack>
  );
}
