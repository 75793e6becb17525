"""sha256 of every file of the registered datasets, by path in the data home."""

__all__ = ["SHA256"]

# Recorded from pristine copies (the data manifest).
SHA256 = {
    "cora_linqs/cora.cites": "ec1a372391b7f0f60a6aff0084e8abd8f19f0faa7e1f2441a41c492042d5945e",
    "cora_linqs/cora.content": "b8ebed0fd45e53995abafd1b70cf6a9fcc8f86abc5826d69b97fe6ca46e9c8ee",
    "citeseer_linqs/citeseer.cites":
        "cd9730630eaaa745058c2cd2cce6b9afb79ca71278a479aebec55f4cf5eb7f30",
    "citeseer_linqs/citeseer.content":
        "de4a3ca98626d77193f27af5c976b981a56080e6273c4e1c05764a95d2143ff8",
    "pubmed_directed/pubmed.edges.tsv":
        "0927906dc73dc6fcd0a753b4b1e603e8421131b4af71727c32576c2c8f0eaf45",
    "pubmed_directed/pubmed.labels.tsv":
        "8c9c018bd02c0c217a410f74bf73160662abc59bb53caefc686dfe07bc6c9074",
    "pubmed_linqs/Pubmed-Diabetes.DIRECTED.cites.tab":
        "5f8d710649f2808b2ffe73dfe9ab9ce7b06da2ccfe3fd3d6660520a8e4ae2141",
    "directed_npz/cora.npz": "068e22d90c3849b4057dfb05851741428992af058efcd4e7ebb4186f3d581de2",
    "directed_npz/citeseer.npz":
        "280278b21b434c047922e8389518861416fb3ad39389c27865ff0e6bbb0aaab7",
    # Git-LFS object ids of public copies of the Amazon files, believed but not verified
    # to be the same files: a mismatch means that they are not.
    "directed_npz/amazon_electronics_photo.npz":
        "bdb1feb8e6ff42ee44024b04479145029c563fd42fc31bff80af20887ba0439a",
    "directed_npz/amazon_electronics_computers.npz":
        "736ba1d9fd85eac2da83a5ad25c463f04b0031a6ca01563f90a7099d9e8ffb2c",
    "askls_mat/cora.mat": "cfd1f5b4f231503cc35ed53c87cf128fc0cb183e37899e8f0c98a9f9da1dec86",
    "askls_mat/citeseer.mat": "66392f321d7e6e95e084615b2ec5cb845109bc5a9388e4877a4a4c0cfaaf9ac6",
}
