// Package version holds gpuc's version string.
package version

// Version is gpuc's release version; "-dev" marks unreleased builds.
const Version = "0.1.0-dev"
