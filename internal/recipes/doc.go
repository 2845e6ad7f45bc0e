// Package recipes holds saved flows (recipe files), their self-healing
// replay, and the site gate that keeps recipe runs and flows from
// hammering one site.
package recipes
