/// `herald users --help` and `herald keys --help`; docs/security.md describes the file they edit.
extension Help {
    static let users = """
        \(UsersCommand.usageText)

        Edits a users file (the people who may sign in to a server, and its API keys). Passwords are
        stored as argon2id hashes only; the file is rewritten atomically with mode 0600.
          add NAME --role ROLE   add a person; the password is asked twice without echo on a terminal, or is
                                 stdin's first line when stdin is not one (at least 8 characters). Creates the
                                 file when there is none
          remove NAME            remove a person
          list                   every person's name and role
          --role ROLE            viewer, operator, admin or worker (docs/security.md)
          --users FILE           the users file (or $HERALD_USERS)
        NAME: 1 to 64 letters, digits and . _ @ -, unique across users and keys.
        Exit 0 when done, 1 when refused (a name taken or unknown, passwords that differ or are too short),
        2 for bad usage or a file that cannot be read, checked or written (the line says which and where).
        """

    static let keys = """
        \(KeysCommand.usageText)

        Edits the API keys of a users file. `add` prints the new key (hk_...) once, alone on stdout;
        the file keeps only its SHA-256, so a lost key is revoked and replaced.
          add NAME --role ROLE   make a key; creates the file when there is none
          --kinds KIND,...       the job kinds the key reaches (default: every kind)
          --expires DURATION     refused from then on: 90m, 12h, 30d, 8w (default: until revoked)
          revoke NAME            remove a key
          list                   every key's name, role, kinds, creation and expiry (never a hash)
          --users FILE           the users file (or $HERALD_USERS)
        Exit 0 when done, 1 when refused (a name taken or unknown), 2 for bad usage or a file that
        cannot be read, checked or written.
        """
}
