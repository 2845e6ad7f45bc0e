// Page "overlays": Dialog (OK/Cancel), Drawer with a form field and Save, and a
// Snackbar holding an Alert that stays until it is closed.
import * as React from 'react';
import Stack from '@mui/material/Stack';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogTitle from '@mui/material/DialogTitle';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogActions from '@mui/material/DialogActions';
import Drawer from '@mui/material/Drawer';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import Snackbar from '@mui/material/Snackbar';
import Alert from '@mui/material/Alert';
import Section from './Section.jsx';
import { setState } from './state.js';

export const heading = 'Overlays';

export const initialState = {
  modal: null,
  drawer: null,
  displayName: 'Ada Costa',
  toast: null,
};

function DeleteDialog() {
  const [open, setOpen] = React.useState(false);
  const close = (how) => () => {
    setOpen(false);
    setState('modal', how);
  };
  return (
    <>
      <Button
        variant="outlined"
        color="error"
        onClick={() => {
          setOpen(true);
          setState('modal', 'opened');
        }}
      >
        Delete project
      </Button>
      <Dialog
        open={open}
        onClose={close('dismissed')}
        aria-labelledby="delete-dialog-title"
        aria-describedby="delete-dialog-description"
      >
        <DialogTitle id="delete-dialog-title">Delete project “Apollo”?</DialogTitle>
        <DialogContent>
          <DialogContentText id="delete-dialog-description">
            The project, its 42 tickets and their history will be deleted. This cannot be undone.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={close('cancelled')}>Cancel</Button>
          <Button onClick={close('confirmed')} variant="contained" color="error" autoFocus>
            OK
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

function ProfileDrawer() {
  const [open, setOpen] = React.useState(false);
  const [name, setName] = React.useState(initialState.displayName);
  const [saved, setSaved] = React.useState(initialState.displayName);
  return (
    <>
      <Button
        variant="outlined"
        onClick={() => {
          setName(saved);
          setOpen(true);
          setState('drawer', 'opened');
        }}
      >
        Edit profile
      </Button>
      <Typography sx={{ mt: 1 }}>Display name: {saved}</Typography>
      <Drawer
        anchor="right"
        open={open}
        onClose={() => {
          setOpen(false);
          setState('drawer', 'closed');
        }}
      >
        <Box
          component="form"
          sx={{ width: 340, p: 3 }}
          onSubmit={(e) => {
            e.preventDefault();
            setOpen(false);
            setSaved(name);
            setState('displayName', name);
            setState('drawer', 'saved');
          }}
        >
          <Typography variant="h6" component="h2" gutterBottom>
            Edit profile
          </Typography>
          <TextField
            label="Display name"
            value={name}
            fullWidth
            margin="normal"
            onChange={(e) => setName(e.target.value)}
          />
          <Stack direction="row" spacing={1} sx={{ mt: 2 }}>
            <Button type="submit" variant="contained">
              Save
            </Button>
            <Button
              onClick={() => {
                setOpen(false);
                setState('drawer', 'closed');
              }}
            >
              Cancel
            </Button>
          </Stack>
        </Box>
      </Drawer>
    </>
  );
}

function SavedToast() {
  const [open, setOpen] = React.useState(false);
  const close = (_, reason) => {
    if (reason === 'clickaway') return;
    setOpen(false);
    setState('toast', 'closed');
  };
  return (
    <>
      <Button
        variant="outlined"
        onClick={() => {
          setOpen(true);
          setState('toast', 'shown');
        }}
      >
        Save changes
      </Button>
      <Snackbar open={open} onClose={close} anchorOrigin={{ vertical: 'bottom', horizontal: 'left' }}>
        <Alert onClose={close} severity="success" variant="filled" sx={{ width: '100%' }}>
          Your changes were saved.
        </Alert>
      </Snackbar>
    </>
  );
}

export function Page() {
  return (
    <Stack>
      <Section title="Danger zone">
        <DeleteDialog />
      </Section>
      <Section title="Profile">
        <ProfileDrawer />
      </Section>
      <Section title="Notifications">
        <SavedToast />
      </Section>
    </Stack>
  );
}
