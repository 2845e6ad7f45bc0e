// The MUI 6 / MUI X 7 widget pages of webpilot's browser tests.
// window.Widgets.mount(name) renders one page into #root; every widget writes
// the library's own value into window.__state from its change callback.
import * as React from 'react';
import { createRoot } from 'react-dom/client';
import { ThemeProvider, createTheme } from '@mui/material/styles';
import CssBaseline from '@mui/material/CssBaseline';
import Container from '@mui/material/Container';
import Typography from '@mui/material/Typography';
import { LocalizationProvider } from '@mui/x-date-pickers/LocalizationProvider';
import { AdapterDayjs } from '@mui/x-date-pickers/AdapterDayjs';

import * as select from './select.jsx';
import * as tree from './tree.jsx';
import * as dates from './dates.jsx';
import * as inputs from './inputs.jsx';
import * as nav from './nav.jsx';
import * as overlays from './overlays.jsx';
import * as grid from './grid.jsx';
import * as lists from './lists.jsx';

const pages = { select, tree, dates, inputs, nav, overlays, grid, lists };

// System fonts only: the pages load nothing from the network.
const theme = createTheme({
  typography: {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  },
});

function Root({ page }) {
  const Page = page.Page;
  React.useEffect(() => {
    window.__ready = true;
  }, []);
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      <LocalizationProvider dateAdapter={AdapterDayjs}>
        <Container maxWidth="md" sx={{ py: 3 }}>
          <Typography variant="h4" component="h1" gutterBottom>
            {page.heading}
          </Typography>
          <Page />
        </Container>
      </LocalizationProvider>
    </ThemeProvider>
  );
}

function mount(name) {
  const page = pages[name];
  if (!page) {
    throw new Error('Widgets.mount: no page named ' + JSON.stringify(name));
  }
  window.__ready = false;
  window.__state = JSON.parse(JSON.stringify(page.initialState));
  createRoot(document.getElementById('root')).render(<Root page={page} />);
}

window.Widgets = { mount, pages: Object.keys(pages) };
