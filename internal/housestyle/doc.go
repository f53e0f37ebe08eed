// Package housestyle holds checks that apply to the whole repository rather than to one package: its
// tests read the source tree as text and fail on what the house style rules out.
package housestyle
