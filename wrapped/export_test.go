package wrapped

// LoadBytes exposes the loader of LoadFile to the tests, without a file.
var LoadBytes = loadBytes
