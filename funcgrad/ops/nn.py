"""TODO(#2): primitives of this family are being added."""
