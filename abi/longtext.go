package abi

// FeatureLongTextPage: a detect hook plugin takes any page whose rendered
// text holds more than LongTextRunes characters other than space, tab,
// CR, LF, form feed and no-break space for no wall, whatever its HTML
// says (a wall shows little: a page with that much to read is the site's).
// For such a page the host then sends only the start of the text (at
// least that many such characters) and no HTML: reading, relaying and
// decoding a large page's whole document on every navigation was work
// the detector threw away. A page with less text arrives whole, as ever.
const FeatureLongTextPage = "long_text_page"

// LongTextRunes is the text length past which a detector that asks for
// FeatureLongTextPage never calls a page a wall.
const LongTextRunes = 3000
