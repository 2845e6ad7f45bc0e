package mcpserver

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// coerce rewrites string values that some clients send for non-string
// parameters ("true", "3", "[…]", "{…}") into the type the schema declares.
// Strings stay strings, and a value that does not parse is left for the
// validator to report. The advertised schema stays exact.
func coerce(args map[string]any, types map[string]string) {
	for name, v := range args {
		str, ok := v.(string)
		if !ok {
			continue
		}
		trimmed := strings.TrimSpace(str)
		switch types[name] {
		case "boolean":
			if b, err := strconv.ParseBool(strings.ToLower(trimmed)); err == nil {
				args[name] = b
			}
		case "integer":
			if n, err := strconv.ParseInt(trimmed, 10, 64); err == nil {
				args[name] = n
			} else if f, err := strconv.ParseFloat(trimmed, 64); err == nil && f == math.Trunc(f) && !math.IsInf(f, 0) {
				// A whole number, in exponent form or past int64 (the
				// schema's bounds then refuse it by its value).
				args[name] = f
				if math.Abs(f) < 1<<62 {
					args[name] = int64(f)
				}
			}
		case "number":
			if f, err := strconv.ParseFloat(trimmed, 64); err == nil {
				args[name] = f
			}
		case "array", "object":
			var x any
			if json.Unmarshal([]byte(trimmed), &x) == nil {
				switch x.(type) {
				case []any:
					if types[name] == "array" {
						args[name] = x
					}
				case map[string]any:
					if types[name] == "object" {
						args[name] = x
					}
				}
			}
		}
	}
}

// trimValidation shortens the validator's message to what a model needs.
func trimValidation(msg string) string {
	msg = strings.TrimPrefix(msg, "validating root: ")
	msg = strings.ReplaceAll(msg, "validating /properties/", "")
	return msg
}
