package abi

// FeatureActiveMark (compact hooks): the compactor promises that the
// [active] mark (the focused element) decides nothing of its output but
// where the mark itself shows. When its output for a snapshot shows the
// mark among one line's attributes, its output for the same snapshot with
// the mark moved to another element is that output with the mark taken
// off that line and put on the line of the element now focused (when its
// output has one, with its ref), in the same place among the attributes
// it kept as the snapshot's line has it. The host may then answer a focus
// move (a Tab) from the compaction it already made of the snapshot
// before, without calling the hook; it calls the hook whenever the texts
// do not show the case is covered.
const FeatureActiveMark = "active_mark"
