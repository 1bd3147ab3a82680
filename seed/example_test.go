package seed_test

import (
	"encoding/json"
	"fmt"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/seed"
)

func ExamplePolicy() {
	p := seed.NewPolicy().AllowRule("Read").DenyRule("Read(./.env)")
	cfg, err := p.Compile(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(file string) toolgate.Call {
		in, _ := json.Marshal(map[string]string{"file_path": file})
		return toolgate.Call{Tool: "Read", Input: in, Cwd: "/app"}
	}
	fmt.Println(cfg.IsAllowed(call("/app/main.go")), cfg.IsDenied(call("/app/.env")))
	// Output: true true
}
