// The one translation unit that holds Catch2's main; every test executable links it.
//
// Every run behaves as with `-w NoTests -w NoAssertions` (Catch2 v2 takes only one `-w` on its
// command line, so they are set here): a test spec that matches no test case fails instead of
// passing with "No tests ran" (a name ctest split or mangled would otherwise pass), and so does a
// test case or leaf section that makes no assertion.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char* argv[]) {
    Catch::Session session;
    session.configData().warnings = static_cast<Catch::WarnAbout::What>(
        Catch::WarnAbout::NoTests | Catch::WarnAbout::NoAssertions);
    if (const int status = session.applyCommandLine(argc, argv); status != 0) {
        return status;
    }
    return session.run();
}
