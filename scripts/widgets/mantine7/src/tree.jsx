// [tree] Mantine has no cascader and no tree select: a file tree view with expand carets and a
// permissions tree with checkboxes, both on Mantine's Tree, as the Mantine docs build them.
import React, { useEffect } from 'react';
import { Checkbox, Group, Stack, Text, Title, Tree, useTree } from '@mantine/core';
import { IconChevronDown, IconFile, IconFolder } from './icons';
import { setState } from './state';

const files = [
  {
    label: 'src',
    value: 'src',
    children: [
      {
        label: 'components',
        value: 'src/components',
        children: [
          { label: 'Header.tsx', value: 'src/components/Header.tsx' },
          { label: 'Footer.tsx', value: 'src/components/Footer.tsx' },
          { label: 'Sidebar.tsx', value: 'src/components/Sidebar.tsx' },
        ],
      },
      { label: 'App.tsx', value: 'src/App.tsx' },
      { label: 'main.tsx', value: 'src/main.tsx' },
    ],
  },
  {
    label: 'public',
    value: 'public',
    children: [
      { label: 'favicon.ico', value: 'public/favicon.ico' },
      { label: 'robots.txt', value: 'public/robots.txt' },
    ],
  },
  { label: 'package.json', value: 'package.json' },
  { label: 'README.md', value: 'README.md' },
];

const permissions = [
  {
    label: 'Company',
    value: 'company',
    children: [
      {
        label: 'Engineering',
        value: 'engineering',
        children: [
          { label: 'Frontend', value: 'frontend' },
          { label: 'Backend', value: 'backend' },
          { label: 'Infrastructure', value: 'infrastructure' },
        ],
      },
      {
        label: 'Sales',
        value: 'sales',
        children: [
          { label: 'Europe', value: 'sales-europe' },
          { label: 'Americas', value: 'sales-americas' },
        ],
      },
      { label: 'Finance', value: 'finance' },
    ],
  },
];

// FileNode is the docs' "renderNode" example: a folder or file icon, the name, and a caret.
function FileNode({ node, expanded, hasChildren, elementProps }) {
  return (
    <Group gap={5} {...elementProps}>
      {hasChildren ? <IconFolder size={16} /> : <IconFile size={16} />}
      <span>{node.label}</span>
      {hasChildren && (
        <IconChevronDown
          size={14}
          style={{ transform: expanded ? 'rotate(180deg)' : 'rotate(0deg)' }}
        />
      )}
    </Group>
  );
}

// PermissionNode is the docs' "Checked state" example: Checkbox.Indicator checks the node, the
// label with its caret expands it.
function PermissionNode({ node, expanded, hasChildren, elementProps, tree }) {
  const checked = tree.isNodeChecked(node.value);
  const indeterminate = tree.isNodeIndeterminate(node.value);
  return (
    <Group gap="xs" {...elementProps}>
      <Checkbox.Indicator
        checked={checked}
        indeterminate={indeterminate}
        onClick={() => (!checked ? tree.checkNode(node.value) : tree.uncheckNode(node.value))}
      />
      <Group gap={5} onClick={() => tree.toggleExpanded(node.value)}>
        <span>{node.label}</span>
        {hasChildren && (
          <IconChevronDown
            size={14}
            style={{ transform: expanded ? 'rotate(180deg)' : 'rotate(0deg)' }}
          />
        )}
      </Group>
    </Group>
  );
}

export const treeInitial = {
  filesExpanded: ['src'],
  fileSelected: [],
  permissions: ['frontend'],
  permissionsExpanded: ['company', 'engineering'],
};

// parents holds the values of the nodes that have children: Mantine's expanded state also flips
// for a leaf that is clicked, which a person does not see.
const parents = new Set();
(function walk(nodes) {
  nodes.forEach((n) => {
    if (n.children && n.children.length) {
      parents.add(n.value);
      walk(n.children);
    }
  });
})([...files, ...permissions]);

function expandedList(state) {
  return Object.keys(state).filter((k) => state[k] && parents.has(k));
}

export function TreePage() {
  const fileTree = useTree({ initialExpandedState: { src: true } });
  const permTree = useTree({
    initialExpandedState: { company: true, engineering: true },
    initialCheckedState: ['frontend'],
  });

  useEffect(() => setState('filesExpanded', expandedList(fileTree.expandedState)), [fileTree.expandedState]);
  useEffect(() => setState('fileSelected', fileTree.selectedState), [fileTree.selectedState]);
  useEffect(() => setState('permissions', permTree.checkedState), [permTree.checkedState]);
  useEffect(() => setState('permissionsExpanded', expandedList(permTree.expandedState)), [permTree.expandedState]);

  return (
    <Stack maw={480} p="md" gap="lg">
      <Title order={2}>Tree widgets</Title>
      <div>
        <Title order={4} id="files-heading">Project files</Title>
        <Text size="sm" c="dimmed">Click a folder to expand or collapse it; click a file to select it.</Text>
        <Tree
          aria-labelledby="files-heading"
          data={files}
          tree={fileTree}
          selectOnClick
          levelOffset={23}
          renderNode={(payload) => <FileNode {...payload} />}
        />
      </div>
      <div>
        <Title order={4} id="perm-heading">Access permissions</Title>
        <Text size="sm" c="dimmed">Check the teams that can see the report.</Text>
        <Tree
          aria-labelledby="perm-heading"
          data={permissions}
          tree={permTree}
          levelOffset={23}
          expandOnClick={false}
          renderNode={(payload) => <PermissionNode {...payload} />}
        />
      </div>
    </Stack>
  );
}
