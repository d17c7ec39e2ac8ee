-- system.properties: Lab2D's PROPERTY_RESULT codes, what readProperty, writeProperty and
-- listProperty return (readProperty may return the property's text instead).
return {SUCCESS = 0, NOT_FOUND = 1, PERMISSION_DENIED = 2, INVALID_ARGUMENT = 3}
