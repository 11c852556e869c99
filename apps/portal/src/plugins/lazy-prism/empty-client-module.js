// Replaces theme-classic's prism-include-languages client module (see index.js).
export default {};
