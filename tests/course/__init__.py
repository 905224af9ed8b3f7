"""The course pipeline tests: real nbgrader on a temporary copy of course/ (marker ``course``)."""
