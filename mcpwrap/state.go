package mcpwrap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// stateVersion is the version of the state file's format.
const stateVersion = 1

// stateFile is the record kept next to a wrapped configuration file
// ([StatePath]): the original text of each wrapped entry, and a copy of the
// whole file as it was before its first wrap (a backup, and what "restored
// byte for byte" is measured against).
type stateFile struct {
	Version int          `json:"toolgate_mcpwrap"`
	Client  string       `json:"client,omitempty"`
	File    string       `json:"file,omitempty"`
	Before  *string      `json:"before,omitempty"`
	Entries []stateEntry `json:"entries"`
}

// stateEntry is the original text of one entry: the JSON value of the
// entry, or the lines of its [mcp_servers.NAME] table.
type stateEntry struct {
	Path     []string `json:"path"`
	Original string   `json:"original"`
}

func parseState(b []byte) (*stateFile, error) {
	st := &stateFile{Version: stateVersion}
	if len(bytes.TrimSpace(b)) == 0 {
		return st, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		return nil, fmt.Errorf("not a toolgate mcp wrap state file (%v)", err)
	}
	if st.Version != stateVersion {
		return nil, fmt.Errorf("state file version %d, want %d", st.Version, stateVersion)
	}
	for _, e := range st.Entries {
		if len(e.Path) == 0 {
			return nil, errors.New("a record without a path")
		}
	}
	return st, nil
}

func (st *stateFile) get(path []string) (string, bool) {
	for _, e := range st.Entries {
		if equalKeys(e.Path, path) {
			return e.Original, true
		}
	}
	return "", false
}

func (st *stateFile) put(path []string, original string) {
	for i, e := range st.Entries {
		if equalKeys(e.Path, path) {
			st.Entries[i].Original = original
			return
		}
	}
	st.Entries = append(st.Entries, stateEntry{Path: path, Original: original})
}

func (st *stateFile) del(path []string) {
	for i, e := range st.Entries {
		if equalKeys(e.Path, path) {
			st.Entries = append(st.Entries[:i:i], st.Entries[i+1:]...)
			return
		}
	}
}

func (st *stateFile) encode() ([]byte, error) {
	st.Version = stateVersion
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(st); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
