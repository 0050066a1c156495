// Package display writes values as zkx shows them everywhere, in the
// explorer and in the commands' output alike: text with nothing a terminal
// would act on, compact durations, and ids in ZooKeeper's hex. It is a
// leaf: anything may import it.
package display
