// Page "grid": MUI X DataGrid (community) of 60 tickets with checkbox selection,
// sortable columns and pagination of 10 rows a page.
import * as React from 'react';
import Box from '@mui/material/Box';
import { DataGrid } from '@mui/x-data-grid';
import Section from './Section.jsx';
import { setState } from './state.js';
import { tickets } from './data.js';

export const heading = 'Tickets';

export const initialState = {
  selected: [],
  sort: null,
  page: 0,
};

const columns = [
  { field: 'id', headerName: 'ID', type: 'number', width: 90 },
  { field: 'title', headerName: 'Title', flex: 1, minWidth: 220 },
  { field: 'status', headerName: 'Status', width: 120 },
  { field: 'priority', headerName: 'Priority', width: 110 },
  { field: 'assignee', headerName: 'Assignee', width: 150 },
];

export function Page() {
  return (
    <Section title="Support tickets">
      <Box sx={{ height: 640, width: '100%' }}>
        <DataGrid
          aria-label="Support tickets"
          rows={tickets}
          columns={columns}
          checkboxSelection
          disableRowSelectionOnClick
          initialState={{ pagination: { paginationModel: { pageSize: 10, page: 0 } } }}
          pageSizeOptions={[10]}
          onRowSelectionModelChange={(ids) => setState('selected', [...ids])}
          onSortModelChange={(model) =>
            setState('sort', model.length ? { field: model[0].field, dir: model[0].sort } : null)
          }
          onPaginationModelChange={(m) => setState('page', m.page)}
        />
      </Box>
    </Section>
  );
}
