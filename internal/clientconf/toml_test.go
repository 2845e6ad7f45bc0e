package clientconf

import "testing"

const body = "command = \"/opt/webpilot\"\nargs = [\"mcp\"]\n"

func TestSetTOMLTable(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"a new file", "", "[mcp_servers.webpilot]\n" + body},
		{"after the rest, with its comments",
			"# my codex\nmodel = \"o3\" # the best\n\n[mcp_servers.other]\ncommand = \"x\"\n",
			"# my codex\nmodel = \"o3\" # the best\n\n[mcp_servers.other]\ncommand = \"x\"\n\n[mcp_servers.webpilot]\n" + body},
		{"an old table replaced where it is, its env sub-table with it",
			"[mcp_servers.webpilot]\ncommand = \"/old\"\nargs = []\n\n[mcp_servers.webpilot.env]\nA = \"1\"\n\n# next\n[mcp_servers.other]\ncommand = \"x\"\n",
			"[mcp_servers.webpilot]\n" + body + "\n# next\n[mcp_servers.other]\ncommand = \"x\"\n"},
		{"a quoted header", "[mcp_servers.\"webpilot\"]\ncommand = \"/old\"\n", "[mcp_servers.webpilot]\n" + body},
		{"the same lines: unchanged", "a = 1\n\n[mcp_servers.webpilot]\n" + body, "a = 1\n\n[mcp_servers.webpilot]\n" + body},
	}
	for _, tt := range tests {
		got, err := SetTOMLTable([]byte(tt.src), "mcp_servers.webpilot", body)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %v\n got %q\nwant %q", tt.name, err, got, tt.want)
		}
	}
	if _, err := SetTOMLTable([]byte("[mcp_servers]\nwebpilot = { command = \"x\" }\n"), "mcp_servers.webpilot", body); err == nil {
		t.Error("an inline table of the same name was not refused")
	}
	if _, err := SetTOMLTable([]byte("mcp_servers.webpilot.command = \"x\"\n"), "mcp_servers.webpilot", body); err == nil {
		t.Error("a dotted key of the same name was not refused")
	}
}

func TestDeleteTOMLTable(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"between others", "a = 1\n\n[mcp_servers.webpilot]\n" + body + "\n[mcp_servers.webpilot.env]\nX = \"1\"\n\n[b]\nc = 2\n", "a = 1\n\n[b]\nc = 2\n"},
		{"at the end", "a = 1\n\n[mcp_servers.webpilot]\n" + body, "a = 1\n"},
		{"none", "a = 1\n", "a = 1\n"},
	}
	for _, tt := range tests {
		got, err := DeleteTOMLTable([]byte(tt.src), "mcp_servers.webpilot")
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %v\n got %q\nwant %q", tt.name, err, got, tt.want)
		}
	}
	for _, src := range []string{"", "# c\nmodel = \"x\"\n", "[mcp_servers.other]\ncommand = \"y\"\n"} {
		set, _ := SetTOMLTable([]byte(src), "mcp_servers.webpilot", body)
		back, err := DeleteTOMLTable(set, "mcp_servers.webpilot")
		if err != nil || string(back) != src {
			t.Errorf("set then delete: %v\n got %q\nwant %q", err, back, src)
		}
	}
}
