"""The memory console (issue 21): pages a person reads and acts in, served by the service at /console.

This first part holds the vendored front-end libraries (vendor.py, static/vendor/); the pages come next."""
