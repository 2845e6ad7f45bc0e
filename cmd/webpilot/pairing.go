package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// pairingFile is where the bridge's pairing secret lives: the user config
// dir, mode 0600. Its existence means "paired".
func pairingFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the user config dir: %w", err)
	}
	return filepath.Join(dir, "webpilot", "bridge.json"), nil
}

type pairingState struct {
	Secret string `json:"secret"` // base64 of 32 bytes
}

// readSecret returns the pairing secret, or nil when not paired.
func readSecret() ([]byte, error) {
	path, err := pairingFile()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the pairing: %w", err)
	}
	var st pairingState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w (run `webpilot pair` again)", path, err)
	}
	secret, err := base64.StdEncoding.DecodeString(st.Secret)
	if err != nil || len(secret) != 32 {
		return nil, fmt.Errorf("%s holds no valid secret (run `webpilot pair` again)", path)
	}
	return secret, nil
}

// writeSecret stores the pairing secret, readable by the user only.
func writeSecret(secret []byte) (string, error) {
	path, err := pairingFile()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("store the pairing: %w", err)
	}
	b, _ := json.Marshal(pairingState{Secret: base64.StdEncoding.EncodeToString(secret)})
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return "", fmt.Errorf("store the pairing: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("store the pairing: %w", err)
	}
	return path, nil
}
