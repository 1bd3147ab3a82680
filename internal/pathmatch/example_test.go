package pathmatch_test

import (
	"fmt"

	"github.com/toolgate/toolgate/internal/pathmatch"
)

func Example() {
	const cwd, home = "/work/app", "/home/ann"
	allow, _ := pathmatch.Compile("src/**", pathmatch.ForAllow, "/work/app")
	deny, _ := pathmatch.Compile("./.env", pathmatch.ForDeny, "/work/app")

	escaped, _ := pathmatch.Abs("src/../../etc/passwd", cwd, home)
	fmt.Println(escaped, allow.Match(escaped, cwd, home))

	src, _ := pathmatch.Abs("src/main.go", cwd, home)
	fmt.Println(src, allow.Match(src, cwd, home))

	fmt.Println(deny.Match("/work/app/.ENV::$DATA", cwd, home))
	fmt.Println(deny.MayMatchBelow("/work", cwd, home), deny.MayMatchBelow("/srv", cwd, home))
	// Output:
	// /work/etc/passwd false
	// /work/app/src/main.go true
	// true
	// true false
}
