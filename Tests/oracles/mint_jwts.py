"""Mints the JWTs HeraldAccessTests (JWTOracleTests) verifies, with PyJWT and pyca/cryptography: an
oracle independent of Herald's libcrypto code. Usage: mint_jwts.py FOLDER NOW

FOLDER holds the keys the Swift test made with the `openssl` command (rsa.key, rsa2.key, ec256.key,
ec384.key, their .pub files, secret.txt); NOW is the test's injected clock, in seconds. Writes
FOLDER/tokens.json ({case name: compact token}) and FOLDER/jwks.json (the public keys as PyJWT encodes
them as JWKs, with kids). Which case must be accepted or refused, and why, is the Swift test's to say.
"""

import base64
import hashlib
import hmac
import json
import sys
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

AUDIENCE = "herald"
ISSUER = "https://app.example"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main() -> None:
    folder = Path(sys.argv[1])
    now = int(sys.argv[2])

    def private(name: str):
        return serialization.load_pem_private_key((folder / f"{name}.key").read_bytes(), password=None)

    rsa, rsa2, ec256, ec384 = private("rsa"), private("rsa2"), private("ec256"), private("ec384")
    rsa_public_pem = (folder / "rsa.pub").read_bytes()
    secret = (folder / "secret.txt").read_bytes().rstrip(b"\n")

    def claims(**changes):
        base = {
            "sub": "alice",
            "role": "operator",
            "kinds": ["build", "deploy"],
            "exp": now + 600,
            "iat": now,
            "aud": AUDIENCE,
            "iss": ISSUER,
        }
        base.update(changes)
        return {name: value for name, value in base.items() if value is not None}

    tokens: dict[str, str] = {}

    def mint(name, payload, key, algorithm, **headers):
        tokens[name] = jwt.encode(payload, key, algorithm=algorithm, headers=headers or None)

    # Accepted, one per algorithm.
    for algorithm in ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512"):
        mint(algorithm.lower(), claims(), rsa, algorithm)
    mint("es256", claims(), ec256, "ES256")
    mint("es384", claims(), ec384, "ES384")
    for algorithm in ("HS256", "HS384", "HS512"):
        mint(algorithm.lower(), claims(), secret, algorithm)
    # Accepted, claims.
    mint("jobs-default-role", claims(role=None, kinds=None, jobs=[7, "12"], sub="ci-bot"), rsa, "RS256")
    mint("worker-role", claims(role="worker", kinds=[]), rsa, "RS256")
    mint("fractional-exp", claims(exp=now + 600.5), rsa, "RS256")
    mint("within-leeway", claims(exp=now - 10, nbf=now + 10, iat=now + 10), rsa, "RS256")
    mint("audience-list", claims(aud=["other", AUDIENCE]), rsa, "RS256")
    mint("typ-jwt-kid-rsa", claims(), rsa, "RS256", kid="rsa-1", typ="JWT")
    mint("kid-ec", claims(), ec256, "ES256", kid="ec-1")
    mint("no-kid-rsa2", claims(sub="bob"), rsa2, "RS256")

    # Refused.
    tokens["alg-none"] = jwt.encode(claims(role="admin"), None, algorithm="none")
    # HS256 whose secret is the RSA public key's PEM (PyJWT refuses to make it, rightly: by hand).
    signing_input = f"{b64url(json.dumps({'alg': 'HS256', 'typ': 'JWT'}).encode())}.{b64url(json.dumps(claims(role='admin')).encode())}"
    mac = hmac.new(rsa_public_pem, signing_input.encode(), hashlib.sha256).digest()
    tokens["hs256-rsa-public-key-as-secret"] = f"{signing_input}.{b64url(mac)}"
    # A valid RS256 token whose payload is swapped for another (same signature).
    header, _, signature = tokens["rs256"].split(".")
    tokens["tampered-payload"] = f"{header}.{b64url(json.dumps(claims(role='admin')).encode())}.{signature}"
    # The signature's last byte flipped.
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[-1] ^= 1
    tokens["tampered-signature"] = f"{header}.{tokens['rs256'].split('.')[1]}.{b64url(bytes(raw))}"
    # ES256 with the DER signature of ECDSA instead of JOSE's raw r||s.
    es_input = f"{b64url(json.dumps({'alg': 'ES256'}).encode())}.{b64url(json.dumps(claims()).encode())}"
    tokens["es256-der-signature"] = f"{es_input}.{b64url(ec256.sign(es_input.encode(), ec.ECDSA(hashes.SHA256())))}"
    mint("rs256-other-key", claims(), rsa2, "RS256")
    mint("expired", claims(exp=now - 31), rsa, "RS256")
    mint("nbf-future", claims(nbf=now + 60), rsa, "RS256")
    mint("iat-future", claims(iat=now + 60), rsa, "RS256")
    mint("wrong-audience", claims(aud="someone-else"), rsa, "RS256")
    mint("no-audience", claims(aud=None), rsa, "RS256")
    mint("wrong-issuer", claims(iss="https://evil.example"), rsa, "RS256")
    mint("missing-exp", claims(exp=None), rsa, "RS256")
    mint("exp-not-number", claims(exp="tomorrow"), rsa, "RS256")
    mint("missing-sub", claims(sub=None), rsa, "RS256")
    mint("empty-sub", claims(sub=""), rsa, "RS256")
    mint("unknown-role", claims(role="root"), rsa, "RS256")
    mint("kinds-not-strings", claims(kinds=["build", 3]), rsa, "RS256")
    mint("jobs-not-ids", claims(jobs=[True]), rsa, "RS256")
    mint("unknown-kid", claims(), rsa, "RS256", kid="nope")
    mint("large", claims(padding="x" * 100_000), rsa, "RS256")
    mint("hs256-wrong-secret", claims(), secret + b"!", "HS256")

    (folder / "tokens.json").write_text(json.dumps(tokens))

    def jwk(algorithm_class, key, kid: str) -> dict:
        entry = json.loads(algorithm_class.to_jwk(key.public_key()))
        entry["kid"] = kid
        return entry

    jwks = {
        "keys": [
            jwk(RSAAlgorithm, rsa, "rsa-1"),
            jwk(RSAAlgorithm, rsa2, "rsa-2"),
            jwk(ECAlgorithm, ec256, "ec-1"),
            jwk(ECAlgorithm, ec384, "ec-384"),
            {"kty": "RSA", "use": "enc", "kid": "encryption-only", "n": "AQAB", "e": "AQAB"},
        ]
    }
    (folder / "jwks.json").write_text(json.dumps(jwks))


if __name__ == "__main__":
    main()
