//go:build !race

package sqlite

const raceBuild = false
