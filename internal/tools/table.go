package tools

import (
	"fmt"
	"slices"
	"strings"
)

// Group is a capability group: tools are switched on and off by group, by
// a profile and --caps.
type Group string

// Capability groups.
const (
	GroupCore       Group = "core"       // status, navigate, snapshot, find, action, frames, close
	GroupForms      Group = "forms"      // browser_fill_form
	GroupWait       Group = "wait"       // browser_wait
	GroupRead       Group = "read"       // browser_read, browser_collect: page content as data
	GroupEval       Group = "eval"       // browser_eval: runs the agent's code in the page
	GroupFlow       Group = "flow"       // browser_flow
	GroupTabs       Group = "tabs"       // browser_tabs
	GroupScreenshot Group = "screenshot" // browser_screenshot
	GroupDialogs    Group = "dialogs"    // browser_dialog
	GroupNetwork    Group = "network"    // browser_network: the session's requests
	GroupDownloads  Group = "downloads"  // browser_download: files and media into the output directory
	GroupConsole    Group = "console"    // browser_console
	GroupHandoff    Group = "handoff"    // browser_handoff: the user takes over a tab
	GroupRecipes    Group = "recipes"    // recipe_list, recipe_run, recipe_save, recipe_record
	GroupPDF        Group = "pdf"        // browser_pdf (full profile)
	GroupCDP        Group = "cdp"        // browser_cdp: raw CDP, allow-listed (full profile)
	GroupMouse      Group = "mouse"      // browser_mouse: input at coordinates (full profile)
	GroupEmulate    Group = "emulate"    // browser_emulate: device, place, media, CPU, network (full profile)
	GroupScreencast Group = "screencast" // browser_screencast: the tab as an animated GIF (full profile)
	GroupStorage    Group = "storage"    // browser_storage: cookies, web storage, storage state (full profile)
	GroupRoute      Group = "route"      // browser_route: requests answered, aborted or changed (full profile)
	GroupContexts   Group = "contexts"   // browser_tabs new's context: named browser contexts (full profile)
	// GroupOpenCLI: opencli_adapter_list, opencli_run, opencli_status.
	// Only when OpenCLI is found (see Select's present), and then in the
	// core profile too.
	GroupOpenCLI Group = "opencli"
)

// Table is every tool webpilot has, in the order they are listed.
func Table() []Tool {
	return []Tool{
		statusTool,
		navigateTool,
		snapshotTool,
		findTool,
		actionTool,
		fillFormTool,
		waitTool,
		readTool,
		collectTool,
		evalTool,
		framesTool,
		flowTool,
		tabsTool,
		screenshotTool,
		dialogTool,
		networkTool,
		downloadTool,
		consoleTool,
		handoffTool,
		closeTool,
		recipeListTool,
		recipeRunTool,
		recipeRecordTool,
		recipeSaveTool,
		pdfTool,
		cdpTool,
		mouseTool,
		emulateTool,
		screencastTool,
		storageTool,
		routeTool,
		openCLIListTool,
		openCLIRunTool,
		openCLIStatusTool,
	}
}

// Profiles.
const (
	// ProfileCore is DESIGN.md's core profile (the default): the everyday
	// tools.
	ProfileCore = "core"
	// ProfileFull is every group of the table.
	ProfileFull = "full"
	// DefaultProfile is the profile used when none is given.
	DefaultProfile = ProfileCore
)

// Profiles are the valid profile names.
var Profiles = []string{ProfileCore, ProfileFull}

// coreGroups are the groups of the core profile. Groups added later for
// DESIGN.md's full-only tools (browser_cdp, browser_pdf, …) stay out of it.
var coreGroups = []Group{GroupCore, GroupForms, GroupWait, GroupRead, GroupEval, GroupFlow, GroupTabs, GroupScreenshot, GroupDialogs}

// optionalGroups are the groups of programs webpilot runs when they are
// installed: they are on (in every profile) when their program was found,
// and off, whatever the caps say, when it was not.
var optionalGroups = []Group{GroupOpenCLI}

// OptionalGroups are the groups of programs webpilot runs only when they
// are installed (GroupOpenCLI).
func OptionalGroups() []Group { return slices.Clone(optionalGroups) }

// Groups are the groups of the table, in the order of their first tool,
// then those that switch on an argument of a tool (GatedArgs).
func Groups() []Group {
	var out []Group
	for _, t := range Table() {
		if !slices.Contains(out, t.Group) {
			out = append(out, t.Group)
		}
	}
	for _, t := range Table() {
		for _, g := range t.GatedArgs() {
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// ProfileGroups are the groups a profile switches on.
func ProfileGroups(profile string) ([]Group, error) {
	switch strings.ToLower(strings.TrimSpace(profile)) {
	case "", ProfileCore:
		return slices.Clone(coreGroups), nil
	case ProfileFull:
		return Groups(), nil
	}
	return nil, fmt.Errorf("%q is not a tool profile: use %s", profile, strings.Join(Profiles, " or "))
}

// Caps are changes to a profile's groups, applied in order: "+group" adds
// one, "-group" removes one ("group" alone adds it), comma-separated.
type Caps []Cap

// Cap is one change: a group switched on or off.
type Cap struct {
	Group Group
	On    bool
}

// ParseCaps reads --caps; an unknown group is an error naming the valid
// ones.
func ParseCaps(s string) (Caps, error) {
	var c Caps
	valid := Groups()
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		add := true
		switch part[0] {
		case '+':
			part = part[1:]
		case '-':
			add, part = false, part[1:]
		}
		g := Group(strings.ToLower(strings.TrimSpace(part)))
		if !slices.Contains(valid, g) {
			names := make([]string, len(valid))
			for i, v := range valid {
				names[i] = string(v)
			}
			return Caps{}, fmt.Errorf("%q is not a capability group: use +group or -group with %s", part, strings.Join(names, ", "))
		}
		c = append(c, Cap{Group: g, On: add})
	}
	return c, nil
}

// String writes caps back as +a,-b.
func (c Caps) String() string {
	var parts []string
	for _, cp := range c {
		sign := "-"
		if cp.On {
			sign = "+"
		}
		parts = append(parts, sign+string(cp.Group))
	}
	return strings.Join(parts, ",")
}

// Selection is the active tools and what chose them.
type Selection struct {
	Profile string
	Caps    Caps
	Groups  []Group // active, in table order
	Tools   []Tool  // active, in table order
	// Absent are the optional groups the caps switched on whose program
	// was not found: they stay off.
	Absent []Group
	// Present are the optional groups whose program was found.
	Present []Group
}

// Unavailable reports whether g is an optional group whose program was
// not found (so no caps switch it on), with what to tell the agent.
func (s Selection) Unavailable(g Group) (msg, hint string, ok bool) {
	if !slices.Contains(optionalGroups, g) || slices.Contains(s.Present, g) {
		return "", "", false
	}
	return "OpenCLI was not found where this client's webpilot looked",
		"install it (npm install -g @jackwener/opencli) or point WEBPILOT_OPENCLI_BIN at it, then restart the MCP client; `webpilot doctor` says where it looked", true
}

// Names are the active tools' names.
func (s Selection) Names() []string {
	names := make([]string, len(s.Tools))
	for i, t := range s.Tools {
		names[i] = t.Name
	}
	return names
}

// Select picks the active tools: the profile's groups (DefaultProfile for
// ""), changed by caps in order (the last word on a group wins). present
// are the optional groups whose program was found (GroupOpenCLI): they
// join the profile's groups; the others stay off.
func Select(profile, caps string, present ...Group) (Selection, error) {
	groups, err := ProfileGroups(profile)
	if err != nil {
		return Selection{}, err
	}
	c, err := ParseCaps(caps)
	if err != nil {
		return Selection{}, err
	}
	if profile = strings.ToLower(strings.TrimSpace(profile)); profile == "" {
		profile = DefaultProfile
	}
	active := map[Group]bool{}
	for _, g := range groups {
		active[g] = true
	}
	for _, g := range present {
		active[g] = true
	}
	for _, cp := range c {
		active[cp.Group] = cp.On
	}
	sel := Selection{Profile: profile, Caps: c, Present: slices.Clone(present)}
	for _, g := range optionalGroups {
		if !slices.Contains(present, g) {
			if slices.Contains(c, Cap{Group: g, On: true}) {
				sel.Absent = append(sel.Absent, g)
			}
			active[g] = false
		}
	}
	on := func(g Group) bool { return active[g] }
	for _, g := range Groups() {
		if on(g) {
			sel.Groups = append(sel.Groups, g)
		}
	}
	for _, t := range Table() {
		if on(t.Group) {
			sel.Tools = append(sel.Tools, t)
		}
	}
	return sel, nil
}

// Lookup finds a tool of the whole table by name, whatever the profile.
func Lookup(name string) (Tool, bool) {
	for _, t := range Table() {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
