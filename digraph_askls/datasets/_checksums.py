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
    # The data manifest gives the first 16 hex digits of these three; the Geom-GCN
    # files below were hashed from the byte-for-byte copies that the manifest describes.
    "heterophily_directed/chameleon_directed.npz":
        "34aea6b6888063544232100d53d4aa7e87e37953ec8dd3a7092afb25bb2f0328",
    "heterophily_directed/squirrel_directed.npz":
        "3f0436486716cf77b651c372e54f6b4c2cc52262e7faeeab584a34b41bae2616",
    "heterophily_directed/chameleon_filtered_directed.npz":
        "5a2d40701407188f1661d37a326484b49cc15251e0dedaa7bd380873dac80f21",
    "heterophily_directed/squirrel_filtered_directed.npz":
        "0526e53252f0b052124f7390829c32e923d432acaf64206191a1144a07b39620",
    "polblogs/polblogs.npz": "cd0983c2b1caa3bbe2703a4e316f97bb1dccd33f98800d3d8e4bbe51cc86941b",
    "geom_gcn/texas/out1_graph_edges.txt":
        "0fe85183243a78cbee9b85a684f8240963d04d1020d10e9cd2b8cfb25e33b476",
    "geom_gcn/texas/out1_node_feature_label.txt":
        "cf5a3ca346cdd1210b8342e22517fcbbdae658065b7a3145f59350e50e6236a3",
    "geom_gcn/splits/texas_split_0.6_0.2_0.npz":
        "7ba77bf7a8856fcc0ab15623a611b8cdce994e820f577da914123fb4f45272b0",
    "geom_gcn/splits/texas_split_0.6_0.2_1.npz":
        "21cc244a96e3c51ad7993afb4dd227f90e467d82b964bb42d7d9fc500a6ef87f",
    "geom_gcn/splits/texas_split_0.6_0.2_2.npz":
        "b9e96a699ccf3a4c31ffbd03e52b25570889833425d20fa44e06c37b327cf61e",
    "geom_gcn/splits/texas_split_0.6_0.2_3.npz":
        "1a7deeb1285009789d5e6045d7e39f7d019c9223d9a75a2b7ce5e26d33b51f63",
    "geom_gcn/splits/texas_split_0.6_0.2_4.npz":
        "b5419ff3fe31adcae66fdb085d4f47d0b188e9436ab59f438632af969aafc674",
    "geom_gcn/splits/texas_split_0.6_0.2_5.npz":
        "68405fd1b9ff6105d99717220ecbd198785e338bf4a73abee722bbc9703d2667",
    "geom_gcn/splits/texas_split_0.6_0.2_6.npz":
        "8ad78b973164e70e5ac0d282e79adcbc6006e373909fbdfd72a13131e09040b8",
    "geom_gcn/splits/texas_split_0.6_0.2_7.npz":
        "a84bcbf997365bddf5fdf72ed49dc7e435e475f8c6210f8cdee7c8581a2bd6df",
    "geom_gcn/splits/texas_split_0.6_0.2_8.npz":
        "65ba65f296f91d40d2d7d3c9369b67415094a7e254c6eee48cd6d6531c586fdf",
    "geom_gcn/splits/texas_split_0.6_0.2_9.npz":
        "4306981d654ad8835c000c1f73fb6c1e60dfe99e26c13a6073f3b0f4cc3ce6ee",
    "geom_gcn/wisconsin/out1_graph_edges.txt":
        "ebd213511c88fce1eda450c2f920600c4b8cbb38f02384856bcc47c6ec1807ae",
    "geom_gcn/wisconsin/out1_node_feature_label.txt":
        "a32b0aa38d42f0d36841e8a8cb646d197f0ff33a182ac75a2b4476aeed3c7e4b",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_0.npz":
        "f66f641e191d35d491cd3b63d6c2cd93c4b436da398984b44c19a8d4d7e7b1a5",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_1.npz":
        "534aeb97266bd5a85a8587adf8eebad3f2e001c1240610f24b62c0ad0c2466ee",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_2.npz":
        "047a5b641778ec3a4c76055fd7f18ecb2424c0952f20dfff7e1b17749d8acbdd",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_3.npz":
        "706c27b4c51d046c0316f1e915f093e4a1fff48b3436b3e7c421eab596a99e77",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_4.npz":
        "7ee813605eec086457aaff022cf3837f2f893fcf8bd37e3a8d2ff0c80e4c4f87",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_5.npz":
        "8094ac2bdaf2cbea8f7a48df66a0800c809b2fd5942740e6b0441b660d3a0dd5",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_6.npz":
        "c423a8deea9b18f9ecb6cfd703578e2159df167de01fe7e6195b88995010252d",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_7.npz":
        "57ad808c8d4dd94dc4404124370bbcebb3dcc597c2bea6457bf05f220adf1527",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_8.npz":
        "27d4d62a2a6aea2cdc399302237512ab0d64fb0c84e648112f97c5896274e42f",
    "geom_gcn/splits/wisconsin_split_0.6_0.2_9.npz":
        "3c149cd124a19021031609e0d7743a7be59aae4f88c8d38410138e8f06f5daaf",
    "geom_gcn/film/out1_graph_edges.txt":
        "997cdce67ea9c29257d3ffe796328391931901cf823830affa453178b60e2c3e",
    "geom_gcn/film/out1_node_feature_label.txt":
        "1d5cdd094f8b91e770f6decfca85b35cf42f75d1efb51055fd6af16e11820ff8",
    "geom_gcn/splits/film_split_0.6_0.2_0.npz":
        "4505a41d4e90abd94d1ec22571ce528b09ad7cf20d87f764aebd4177590767f5",
    "geom_gcn/splits/film_split_0.6_0.2_1.npz":
        "1871b0d24e3977c41e378fd24acc8025b63f86b77739be77a5b558d1287f207d",
    "geom_gcn/splits/film_split_0.6_0.2_2.npz":
        "d26680e911ef3ecc9fc2a26d90c9d35028c63aadd7a5aea774649d1496c282cb",
    "geom_gcn/splits/film_split_0.6_0.2_3.npz":
        "6755ad5f6a0be8594b344af3d2261eed935b83b73c4d70136e1a7beea7f78cb0",
    "geom_gcn/splits/film_split_0.6_0.2_4.npz":
        "328fdca62b25074f21f2922518e042f24b3b8a1fc378f9dfb2cae36439aed902",
    "geom_gcn/splits/film_split_0.6_0.2_5.npz":
        "5b3161a8dc8de4b2e651ebd56d68e768d1377044895b325566117fe26ab81cb7",
    "geom_gcn/splits/film_split_0.6_0.2_6.npz":
        "e251b38abd4d7931b5e9ae5aba99dcdf87f0be283bdf6e65421274a1c9ef1df6",
    "geom_gcn/splits/film_split_0.6_0.2_7.npz":
        "12164ef9f5620a2f12a387f4f2b8636859d42201101d6d32829ade62d5a98326",
    "geom_gcn/splits/film_split_0.6_0.2_8.npz":
        "405cd1f7f631f678119f8bf2405809e86614d532985beb59566fcf95abd35b3f",
    "geom_gcn/splits/film_split_0.6_0.2_9.npz":
        "505691c5d41bb37b20d085415dcdde2e8e68b5bc4e1feb2c0e361308002012bb",
    "blogcatalog/blogcatalog.mat":
        "d4f4fb89ce1ccd4b7e2a183386c000773cc9362cc61f1be5b246a6d9c259da8f",
}
