package ocr

// Unrotate is unrotate, for the tests of package ocr_test.
var Unrotate = unrotate
