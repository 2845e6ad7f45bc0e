package clientconf

import (
	"encoding/json"
	"testing"
)

var entry = map[string]any{"command": "/opt/webpilot", "args": []string{"mcp"}}

func TestSetJSON(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"a new file", ``, "{\n  \"mcpServers\": {\n    \"webpilot\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"/opt/webpilot\"\n    }\n  }\n}\n"},
		{"an empty object", `{}`, "{\n  \"mcpServers\": {\n    \"webpilot\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"/opt/webpilot\"\n    }\n  }\n}"},
		{"beside another server, four-space indent, comments and a trailing comma kept",
			"// my config\n{\n    \"theme\": \"dark\", /* keep */\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n    },\n}\n",
			"// my config\n{\n    \"theme\": \"dark\", /* keep */\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n        \"webpilot\": {\n            \"args\": [\n                \"mcp\"\n            ],\n            \"command\": \"/opt/webpilot\"\n        },\n    },\n}\n"},
		{"an old entry replaced, the rest as it was",
			"{\n  \"mcpServers\": {\n    \"webpilot\": {\"command\": \"/old/webpilot\", \"args\": [\"mcp\"]},\n    \"z\": {}\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"webpilot\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"/opt/webpilot\"\n    },\n    \"z\": {}\n  }\n}\n"},
		{"an equal entry left as written",
			"{\"mcpServers\": {\"webpilot\": {\"command\": \"/opt/webpilot\", \"args\": [\"mcp\"]}}}",
			"{\"mcpServers\": {\"webpilot\": {\"command\": \"/opt/webpilot\", \"args\": [\"mcp\"]}}}"},
		{"a string with braces and an escaped quote is not structure",
			"{\n  \"note\": \"a } \\\" { b\"\n}",
			"{\n  \"note\": \"a } \\\" { b\",\n  \"mcpServers\": {\n    \"webpilot\": {\n      \"args\": [\n        \"mcp\"\n      ],\n      \"command\": \"/opt/webpilot\"\n    }\n  }\n}"},
	}
	for _, tt := range tests {
		got, err := SetJSON([]byte(tt.src), []string{"mcpServers"}, "webpilot", entry)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
		// Setting again changes nothing; the entry reads back.
		again, err := SetJSON(got, []string{"mcpServers"}, "webpilot", entry)
		if err != nil || string(again) != string(got) {
			t.Errorf("%s: a second set changed the file: %v\n%s", tt.name, err, again)
		}
		v, ok, err := GetJSON(got, []string{"mcpServers"}, "webpilot")
		b, _ := json.Marshal(v)
		if !ok || err != nil || string(b) != `{"args":["mcp"],"command":"/opt/webpilot"}` {
			t.Errorf("%s: read back %s %v %v", tt.name, b, ok, err)
		}
	}
}

func TestSetJSONRefuses(t *testing.T) {
	for _, src := range []string{`[1]`, `{"mcpServers": 3}`, `{"a": "unclosed}`, `{"a": 1 /* open`, `{"a" 1}`, `{} {}`} {
		if out, err := SetJSON([]byte(src), []string{"mcpServers"}, "webpilot", entry); err == nil {
			t.Errorf("%s: no error, got %s", src, out)
		}
	}
}

func TestDeleteJSON(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"the only server", "{\n  \"mcpServers\": {\n    \"webpilot\": {\"command\": \"w\"}\n  }\n}\n", "{\n  \"mcpServers\": {}\n}\n"},
		{"the first of two", "{\n  \"mcpServers\": {\n    \"webpilot\": {\"command\": \"w\"},\n    \"other\": {}\n  }\n}\n", "{\n  \"mcpServers\": {\n    \"other\": {}\n  }\n}\n"},
		{"the last of two", "{\n  \"mcpServers\": {\n    \"other\": {},\n    \"webpilot\": {\"command\": \"w\"}\n  }\n}\n", "{\n  \"mcpServers\": {\n    \"other\": {}\n  }\n}\n"},
		{"with a trailing comma (JSONC)", "{\n  \"mcpServers\": {\n    \"other\": {}, // mine\n    \"webpilot\": {\"command\": \"w\"},\n  },\n}\n", "{\n  \"mcpServers\": {\n    \"other\": {}, // mine\n  },\n}\n"},
		{"none there", "{\"mcpServers\": {\"other\": {}}}", "{\"mcpServers\": {\"other\": {}}}"},
		{"no file", "", ""},
	}
	for _, tt := range tests {
		got, err := DeleteJSON([]byte(tt.src), []string{"mcpServers"}, "webpilot")
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %v\n got %q\nwant %q", tt.name, err, got, tt.want)
		}
	}
	// Set then delete gives the file back.
	for _, src := range []string{"{\n  \"mcpServers\": {\n    \"other\": {}\n  }\n}\n", "{\n    \"a\": 1,\n    \"mcpServers\": {\n        \"x\": 1,\n    },\n}\n"} {
		set, err := SetJSON([]byte(src), []string{"mcpServers"}, "webpilot", entry)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DeleteJSON(set, []string{"mcpServers"}, "webpilot")
		if err != nil || string(back) != src {
			t.Errorf("set then delete: %v\n got %q\nwant %q", err, back, src)
		}
	}
}
