//go:build !race

package toolgate_test

const raceEnabled = false
