package jsonin_test

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/jsonin"
)

func Example() {
	doc, err := jsonin.Parse([]byte(`{"file_path":"/src/a.go","edits":[{"old_string":"x","new_string":"y\u0000"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	root := doc.Root()
	path, ok := root.Get("file_path").Str()
	fmt.Println(path, ok)
	fmt.Println(root.Get("edits").Len(), root.Get("edits").Index(0).Get("new_string").HasControl())
	fmt.Println(root.Get("timeout").Exists())

	_, err = jsonin.Parse([]byte(`{"a":1,"\u0061":2}`))
	fmt.Println(err)
	// Output:
	// /src/a.go true
	// 1 true
	// false
	// offset 7: duplicate key "a" in object
}
