// The storage layer watches suite directories through libinotifytools (Debian's
// libinotifytools0-dev). Importing its module here, before any code calls it, makes a machine
// without the library fail the build with a message that names the package to install.
internal import CInotifyTools
