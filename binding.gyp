# The addon's build, for node-gyp: its target is csrc/onewrite.gypi, which
# the package ships (this file it does not: npm would run node-gyp on
# every install from a lockfile where binding.gyp is in the package).
{ "includes": ["csrc/onewrite.gypi"] }
