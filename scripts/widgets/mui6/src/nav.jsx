// Page "nav": Tabs, Menu opened by a Button, Stepper with Back/Next, Accordion,
// Pagination, and icon-only IconButtons (aria-label, Tooltip title, aria-pressed).
import * as React from 'react';
import Stack from '@mui/material/Stack';
import Box from '@mui/material/Box';
import Tabs from '@mui/material/Tabs';
import Tab from '@mui/material/Tab';
import Typography from '@mui/material/Typography';
import Button from '@mui/material/Button';
import Menu from '@mui/material/Menu';
import MenuItem from '@mui/material/MenuItem';
import Stepper from '@mui/material/Stepper';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Accordion from '@mui/material/Accordion';
import AccordionSummary from '@mui/material/AccordionSummary';
import AccordionDetails from '@mui/material/AccordionDetails';
import Pagination from '@mui/material/Pagination';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import KeyboardArrowDownIcon from '@mui/icons-material/KeyboardArrowDown';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import DeleteIcon from '@mui/icons-material/Delete';
import SettingsIcon from '@mui/icons-material/Settings';
import StarIcon from '@mui/icons-material/Star';
import StarBorderIcon from '@mui/icons-material/StarBorder';
import Section from './Section.jsx';
import { setState } from './state.js';

export const heading = 'Navigation';

export const initialState = {
  tab: 'account',
  menuAction: null,
  step: 0,
  accordion: 'delivery',
  page: 1,
  iconButton: null,
  favourite: false,
};

const tabPanels = {
  account: 'Name, email address and profile picture.',
  security: 'Password, two-factor authentication and active sessions.',
  notifications: 'Email and push notification preferences.',
};

function SettingsTabs() {
  const [tab, setTab] = React.useState(initialState.tab);
  return (
    <Box>
      <Tabs
        value={tab}
        aria-label="Settings sections"
        onChange={(_, v) => {
          setTab(v);
          setState('tab', v);
        }}
      >
        <Tab label="Account" value="account" id="tab-account" aria-controls="tabpanel-account" />
        <Tab label="Security" value="security" id="tab-security" aria-controls="tabpanel-security" />
        <Tab label="Notifications" value="notifications" id="tab-notifications" aria-controls="tabpanel-notifications" />
        <Tab label="Billing" value="billing" disabled />
      </Tabs>
      {Object.keys(tabPanels).map((k) => (
        <div key={k} role="tabpanel" hidden={tab !== k} id={'tabpanel-' + k} aria-labelledby={'tab-' + k}>
          {tab === k && <Typography sx={{ p: 2 }}>{tabPanels[k]}</Typography>}
        </div>
      ))}
    </Box>
  );
}

function ActionsMenu() {
  const [anchor, setAnchor] = React.useState(null);
  const open = Boolean(anchor);
  const pick = (action) => () => {
    setAnchor(null);
    setState('menuAction', action);
  };
  return (
    <div>
      <Button
        id="actions-button"
        variant="contained"
        aria-controls={open ? 'actions-menu' : undefined}
        aria-haspopup="true"
        aria-expanded={open ? 'true' : undefined}
        endIcon={<KeyboardArrowDownIcon />}
        onClick={(e) => setAnchor(e.currentTarget)}
      >
        Actions
      </Button>
      <Menu
        id="actions-menu"
        anchorEl={anchor}
        open={open}
        onClose={() => setAnchor(null)}
        MenuListProps={{ 'aria-labelledby': 'actions-button' }}
      >
        <MenuItem onClick={pick('edit')}>Edit</MenuItem>
        <MenuItem onClick={pick('duplicate')}>Duplicate</MenuItem>
        <MenuItem onClick={pick('archive')}>Archive</MenuItem>
        <MenuItem disabled>Move to…</MenuItem>
        <MenuItem onClick={pick('delete')}>Delete</MenuItem>
      </Menu>
    </div>
  );
}

const steps = ['Shipping address', 'Payment details', 'Review order'];
const stepText = [
  'Where should we send your order?',
  'How would you like to pay?',
  'Check your order before you place it.',
];

function CheckoutStepper() {
  const [active, setActive] = React.useState(initialState.step);
  const go = (n) => {
    setActive(n);
    setState('step', n);
  };
  return (
    <Box sx={{ width: '100%' }}>
      <Stepper activeStep={active}>
        {steps.map((label) => (
          <Step key={label}>
            <StepLabel>{label}</StepLabel>
          </Step>
        ))}
      </Stepper>
      <Typography sx={{ mt: 2, mb: 1 }}>
        {active === steps.length ? 'Order placed. Thank you!' : stepText[active]}
      </Typography>
      <Box sx={{ display: 'flex', pt: 1 }}>
        <Button color="inherit" disabled={active === 0} onClick={() => go(active - 1)} sx={{ mr: 1 }}>
          Back
        </Button>
        <Box sx={{ flex: '1 1 auto' }} />
        {active === steps.length ? (
          <Button onClick={() => go(0)}>Reset</Button>
        ) : (
          <Button variant="contained" onClick={() => go(active + 1)}>
            {active === steps.length - 1 ? 'Finish' : 'Next'}
          </Button>
        )}
      </Box>
    </Box>
  );
}

const faq = [
  ['delivery', 'How long does delivery take?', 'Orders arrive within 3 to 5 working days.'],
  ['returns', 'Can I return an item?', 'Yes, within 30 days of delivery, unused and in its box.'],
  ['abroad', 'Do you ship abroad?', 'We ship to the EU, the UK, Japan and North America.'],
];

function FaqAccordion() {
  const [expanded, setExpanded] = React.useState(initialState.accordion);
  const change = (panel) => (_, isExpanded) => {
    const v = isExpanded ? panel : false;
    setExpanded(v);
    setState('accordion', v);
  };
  return (
    <div>
      {faq.map(([id, q, a]) => (
        <Accordion key={id} expanded={expanded === id} onChange={change(id)}>
          <AccordionSummary expandIcon={<ExpandMoreIcon />} aria-controls={id + '-content'} id={id + '-header'}>
            <Typography>{q}</Typography>
          </AccordionSummary>
          <AccordionDetails>
            <Typography>{a}</Typography>
          </AccordionDetails>
        </Accordion>
      ))}
      <Accordion disabled>
        <AccordionSummary expandIcon={<ExpandMoreIcon />} aria-controls="gift-content" id="gift-header">
          <Typography>Gift wrapping (unavailable)</Typography>
        </AccordionSummary>
      </Accordion>
    </div>
  );
}

function ResultsPagination() {
  const [page, setPage] = React.useState(initialState.page);
  return (
    <Stack spacing={1}>
      <Typography>Showing results page {page} of 10</Typography>
      <Pagination
        count={10}
        page={page}
        onChange={(_, p) => {
          setPage(p);
          setState('page', p);
        }}
      />
    </Stack>
  );
}

function IconButtons() {
  const [fav, setFav] = React.useState(initialState.favourite);
  return (
    <Stack direction="row" spacing={1} alignItems="center">
      <Typography sx={{ mr: 1 }}>Quarterly report.pdf</Typography>
      <IconButton aria-label="Delete" onClick={() => setState('iconButton', 'delete')}>
        <DeleteIcon />
      </IconButton>
      <Tooltip title="Settings">
        <IconButton onClick={() => setState('iconButton', 'settings')}>
          <SettingsIcon />
        </IconButton>
      </Tooltip>
      <IconButton
        aria-label="Favourite"
        aria-pressed={fav}
        color={fav ? 'warning' : 'default'}
        onClick={() => {
          setFav(!fav);
          setState('favourite', !fav);
          setState('iconButton', 'favourite');
        }}
      >
        {fav ? <StarIcon /> : <StarBorderIcon />}
      </IconButton>
    </Stack>
  );
}

export function Page() {
  return (
    <Stack>
      <Section title="Profile settings">
        <SettingsTabs />
      </Section>
      <Section title="Document actions">
        <ActionsMenu />
      </Section>
      <Section title="Checkout">
        <CheckoutStepper />
      </Section>
      <Section title="Frequently asked questions">
        <FaqAccordion />
      </Section>
      <Section title="Search results">
        <ResultsPagination />
      </Section>
      <Section title="File toolbar">
        <IconButtons />
      </Section>
    </Stack>
  );
}
