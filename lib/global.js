// (Not strict, on purpose.)
//
// `this`, as a function that is not strict receives it: called without a
// receiver, this realm's global object; called on a primitive, that
// primitive's wrapper object of this realm (whose prototype is this
// realm's own String.prototype, Number.prototype, ...).  Found without
// reading any property: `globalThis` and `String` are properties of the
// global object, which code loaded before onewrite can redefine.

module.exports = function receiver() {
  return this;
};
